/** What the store keeps of clients registered at the registration endpoint (RFC 7591, RFC 7592). */

/**
 * A client registered at the registration endpoint (RFC 7591), as the store keeps it:
 * its metadata and the digests of its secrets, never the secrets themselves.
 */
export interface ClientRegistrationRecord {
  readonly clientId: string;
  /** The client metadata as registered (validated RFC 7591 fields); read back through the registration schema. */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** `sha256:` digest of the client secret; absent for a public client. */
  readonly clientSecretHash?: string;
  /** `sha256:` digest of the registration access token (RFC 7592 §1). */
  readonly registrationTokenHash: string;
  /** `client_id_issued_at`: seconds since the epoch. */
  readonly issuedAt: number;
}

export interface StoredClientRegistration {
  readonly record: ClientRegistrationRecord;
  /** When the registration expires unless it is used (touched) again, in milliseconds since the epoch. */
  readonly expiresAt: number;
}

/** A page of registrations in the order of their client ids. */
export interface RegistrationPage {
  readonly registrations: StoredClientRegistration[];
  /** The last client id of this page, when another page may follow: the next page starts after it. */
  readonly next?: string;
}

/**
 * Registered clients, shared by every instance. Each registration expires `ttlSeconds`
 * after it was created, replaced or last touched, so unused ones disappear on their own.
 */
export interface ClientRegistrationStore {
  /** Records a new registration; resolves false, changing nothing, when the id is taken (never overwrites). */
  createClientRegistration(record: ClientRegistrationRecord, ttlSeconds: number): Promise<boolean>;
  findClientRegistration(clientId: string): Promise<StoredClientRegistration | undefined>;
  /** Replaces an existing registration (RFC 7592 §2.2); resolves false, creating nothing, when it is gone. */
  replaceClientRegistration(record: ClientRegistrationRecord, ttlSeconds: number): Promise<boolean>;
  /** Resolves false when there was nothing to delete. */
  deleteClientRegistration(clientId: string): Promise<boolean>;
  /** Restarts the expiry of an existing registration (the client was used); resolves false when it is gone. */
  touchClientRegistration(clientId: string, ttlSeconds: number): Promise<boolean>;
  /**
   * The unexpired registrations after the client id `after`, in the order of their ids, at
   * most `limit` (the admin API's list): a page never repeats or skips one listed before it.
   */
  listClientRegistrations(page: { readonly after?: string | undefined; readonly limit: number }): Promise<RegistrationPage>;
  /** How many registrations are unexpired (the console's overview), without reading them: O(log n) on Redis. */
  countClientRegistrations(): Promise<number>;
}
