import { addressLimitKey } from '../shared/address-limit-key.js';
import { type Clock, nowSeconds } from '../clock.js';
import { NO_EVENTS, type SecurityEvents } from '../events/types.js';
import { InvalidClientMetadata, InvalidToken, ServerError, TooManyRegistrations } from '../errors/index.js';
import type { AttemptCounter, ClientRegistrationRecord, ClientRegistrationStore, StoredClientRegistration } from '../store/types.js';
import type { ClientSource } from './directory.js';
import { clientInformation, clientOf, isDynamicClientId, newDynamicClientId } from './registered-client.js';
import { type ClientMetadataPolicy, type RegisteredMetadata, validatedClientMetadata } from './registration-metadata.js';
import type { Client, ClientAuthMethod } from './registry.js';
import { generateClientSecret, hashClientSecret, storedSecretDigest, verifyClientSecret } from './secret.js';

/**
 * Dynamic client registration (RFC 7591) and its management (RFC 7592): registered clients
 * live in the store, shared by every instance, as metadata and digests only. Unused ones
 * expire after `ttlSeconds`. As a ClientSource it answers after CLIENTS_FILE, and never for
 * an id the file holds.
 */

export interface RegistrationSettings {
  readonly policy: ClientMetadataPolicy;
  /** DYNAMIC_CLIENT_TTL: a registration unused this long is gone. */
  readonly ttlSeconds: number;
  /**
   * REGISTRATION_RATE_LIMIT registrations per client address in REGISTRATION_RATE_WINDOW
   * seconds; an IPv6 client counts by its network of IPV6_LIMIT_PREFIX bits.
   */
  readonly rateLimit: { readonly limit: number; readonly windowSeconds: number; readonly ipv6LimitPrefix: number };
  /** The client configuration endpoint of a client (RFC 7592 §1: `registration_client_uri`). */
  registrationClientUri(clientId: string): string;
}

/** What a client authenticates with: nothing, the secret we issue it, or its own keys (no secret then). */
function credentialOf(method: ClientAuthMethod): 'none' | 'secret' | 'keys' {
  return method === 'none' ? 'none' : method === 'private_key_jwt' ? 'keys' : 'secret';
}

/**
 * How stale a registration's expiry may get before a use restarts it: at most one write per
 * client per interval, instead of one per token request (a tenth of the TTL, at most an hour).
 */
export function touchIntervalSeconds(ttlSeconds: number): number {
  return Math.min(3600, Math.floor(ttlSeconds / 10));
}

const INVALID_REGISTRATION_TOKEN = 'the registration access token is invalid, or the client is not registered';

export interface Registration {
  readonly clientId: string;
  readonly metadata: RegisteredMetadata;
  /** The client information response (RFC 7591 §3.2.1, RFC 7592 §3). */
  readonly information: Record<string, unknown>;
}

export class ClientRegistrations implements ClientSource {
  constructor(
    private readonly store: ClientRegistrationStore,
    private readonly attempts: AttemptCounter,
    /** CLIENTS_FILE: an id it holds is never served from a registration. */
    private readonly fileClients: { get(clientId: string): Client | undefined },
    private readonly settings: RegistrationSettings,
    private readonly clock: Clock,
    private readonly events: SecurityEvents = NO_EVENTS,
  ) {}

  /**
   * RFC 7591 §3: validates, records, and answers once with the secrets. Each registration
   * counts against its address's limit, reserved before anything else so a concurrent burst
   * cannot pass it; a request that registers nothing (refused metadata, store failure) gives
   * its reservation back.
   */
  async register(body: unknown, clientAddress: string): Promise<Registration> {
    const { limit, windowSeconds, ipv6LimitPrefix } = this.settings.rateLimit;
    const counter = `registration:${addressLimitKey(clientAddress, ipv6LimitPrefix)}`;
    const reservation = await this.attempts.reserveAttempt(counter, limit, windowSeconds);
    if (!reservation.reserved) throw new TooManyRegistrations(reservation.retryAfterSeconds);
    let registration: Registration;
    try {
      registration = await this.create(body);
    } catch (err) {
      await this.attempts.releaseAttempt(counter).catch(() => undefined);
      throw err;
    }
    // Registered: it stays counted. A settle the store missed only leaves it in flight a while.
    await this.attempts.keepAttempt(counter).catch(() => undefined);
    const { token_endpoint_auth_method: authMethod, grant_types: grantTypes } = registration.metadata;
    this.events.emit({ event: 'client.registered', clientId: registration.clientId, authMethod, grantTypes, address: clientAddress });
    return registration;
  }

  private async create(body: unknown): Promise<Registration> {
    const metadata = validatedClientMetadata(body, this.settings.policy);
    const clientId = newDynamicClientId();
    const clientSecret = credentialOf(metadata.token_endpoint_auth_method) === 'secret' ? generateClientSecret() : undefined;
    // A 256-bit bearer token, like a client secret: stored as its SHA-256 digest.
    const registrationAccessToken = generateClientSecret();
    const record: ClientRegistrationRecord = {
      clientId,
      metadata: { ...metadata },
      ...(clientSecret === undefined ? {} : { clientSecretHash: hashClientSecret(clientSecret) }),
      registrationTokenHash: hashClientSecret(registrationAccessToken),
      issuedAt: nowSeconds(this.clock),
    };
    this.assertServable(record);
    // Fail closed: a registration the store did not acknowledge returns no client.
    if (!(await this.store.createClientRegistration(record, this.settings.ttlSeconds)))
      throw new ServerError(undefined, { cause: new Error('generated client id already registered') });
    return this.answer(record, { clientSecret, registrationAccessToken });
  }

  /** RFC 7592 §2.1: the current registration. The client secret is not shown again (only its digest is kept). */
  async read(clientId: string, registrationAccessToken: string): Promise<Registration> {
    const { record } = await this.authorized(clientId, registrationAccessToken);
    return this.answer(record, { registrationAccessToken });
  }

  /**
   * RFC 7592 §2.2: "Valid values of client metadata fields in this request MUST replace, not
   * augment, the values previously associated with this client." The client id, the secret
   * and the registration access token stay; the expiry restarts.
   */
  async update(clientId: string, registrationAccessToken: string, body: unknown): Promise<Registration> {
    const { record } = await this.authorized(clientId, registrationAccessToken);
    const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    // §2.2: "The client MUST include its "client_id" field in the request, and it MUST be the same as its currently issued client identifier."
    if (fields.client_id !== clientId) throw new InvalidClientMetadata('client_id must be present and be this client identifier');
    const presentedSecret = fields.client_secret;
    // §2.2: "If the client includes the "client_secret" field in the request, the value of this field MUST match the currently issued client secret".
    if (presentedSecret !== undefined && !(typeof presentedSecret === 'string' && this.secretMatches(record, presentedSecret)))
      throw new InvalidClientMetadata('client_secret does not match the secret issued to this client');
    const metadata = validatedClientMetadata(body, this.settings.policy);
    const was = credentialOf((record.metadata as unknown as RegisteredMetadata).token_endpoint_auth_method);
    if (was !== credentialOf(metadata.token_endpoint_auth_method))
      throw new InvalidClientMetadata(
        'token_endpoint_auth_method cannot change between none, a client secret and private_key_jwt: register a new client instead',
      );
    const updated: ClientRegistrationRecord = { ...record, metadata: { ...metadata } };
    this.assertServable(updated);
    if (!(await this.store.replaceClientRegistration(updated, this.settings.ttlSeconds)))
      throw new InvalidToken(INVALID_REGISTRATION_TOKEN);
    return this.answer(updated, { clientSecret: presentedSecret as string | undefined, registrationAccessToken });
  }

  /** RFC 7592 §2.3: the registration is gone; its access token no longer works anywhere. */
  async delete(clientId: string, registrationAccessToken: string): Promise<void> {
    await this.authorized(clientId, registrationAccessToken);
    if (!(await this.store.deleteClientRegistration(clientId))) throw new InvalidToken(INVALID_REGISTRATION_TOKEN);
    this.events.emit({ event: 'client.deleted', clientId });
  }

  /** As a ClientSource: a use (authentication, authorization request) restarts the expiry, at most once per interval. */
  async find(clientId: string): Promise<Client | undefined> {
    const stored = await this.lookup(clientId);
    if (!stored) return undefined;
    let client: Client;
    try {
      client = clientOf(stored.record, this.settings.policy.grantTypes);
    } catch {
      // No grant left under today's DYNAMIC_CLIENT_GRANTS, or a record the rules no longer accept.
      return undefined;
    }
    const { ttlSeconds } = this.settings;
    const sinceLastRestart = ttlSeconds * 1000 - (stored.expiresAt - this.clock());
    if (sinceLastRestart >= touchIntervalSeconds(ttlSeconds) * 1000) await this.store.touchClientRegistration(clientId, ttlSeconds);
    return client;
  }

  /** The stored registration of `clientId`, unless the id is not one of ours or CLIENTS_FILE holds it. */
  private async lookup(clientId: string): Promise<StoredClientRegistration | undefined> {
    if (!isDynamicClientId(clientId) || this.fileClients.get(clientId)) return undefined;
    return this.store.findClientRegistration(clientId);
  }

  /**
   * RFC 7592 §2.1: "If the registration access token used to make this request is not
   * valid, the server MUST respond with an error as described in [RFC6750]"; §2: a client
   * that does not exist gets 401 too. The digest comparison runs in constant time, also
   * for an unknown client (against a dummy digest).
   */
  private async authorized(clientId: string, registrationAccessToken: string): Promise<StoredClientRegistration> {
    const stored = await this.lookup(clientId);
    const digest = stored ? storedSecretDigest(stored.record.registrationTokenHash) : undefined;
    if (!verifyClientSecret(registrationAccessToken, digest) || !stored) throw new InvalidToken(INVALID_REGISTRATION_TOKEN);
    return stored;
  }

  private secretMatches(record: ClientRegistrationRecord, secret: string): boolean {
    const digest = record.clientSecretHash === undefined ? undefined : storedSecretDigest(record.clientSecretHash);
    return verifyClientSecret(secret, digest);
  }

  /** The registration must also pass the CLIENTS_FILE rules, or it could never be used. */
  private assertServable(record: ClientRegistrationRecord): void {
    try {
      clientOf(record, this.settings.policy.grantTypes);
    } catch (err) {
      throw new InvalidClientMetadata('the client metadata is not acceptable for a registered client', { cause: err });
    }
  }

  private answer(record: ClientRegistrationRecord, credentials: { clientSecret?: string | undefined; registrationAccessToken: string }) {
    const registrationClientUri = this.settings.registrationClientUri(record.clientId);
    return {
      clientId: record.clientId,
      metadata: record.metadata as unknown as RegisteredMetadata,
      information: clientInformation(record, { ...credentials, registrationClientUri }),
    };
  }
}
