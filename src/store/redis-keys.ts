import { sha256Base64url } from '../shared/sha256.js';
import { clientAssertionKey, dpopProofKey } from './replay-keys.js';
import type { EntryKind } from './entry-types.js';
import type { OpaqueTokenRef } from './types.js';

/**
 * The Redis key layout. Every key has a TTL and a hash tag:
 *   <prefix>{<grantId>}:code:<digest>   authorization code (hash: data, used)
 *   <prefix>{<grantId>}:family          refresh family of constant size (hash: g, c, p, i, t, revoked;
 *                                       see src/store/lua.ts), or only a revocation mark
 *   <prefix>{<grantId>}:grace           sealed successor response of the token just rotated (hash: sealed, used)
 *   <prefix>{refresh-token-key}         the refresh-token key (the one key without a TTL)
 *   <prefix>{<grantId>}:rt:<digest>     legacy refresh token (hash: issued_at, rotated_at, successor, grace_used)
 *   <prefix>{<grantId>}:grace:<digest>  legacy: sealed successor response of a just-rotated token
 *   <prefix>{<grantId>}:indexed         the grant is listed in the indexes (until its latest expiry there)
 *   <prefix>{<grantId>}:device:<digest> a device authorization (RFC 8628; hash: see src/store/lua-devices.ts)
 *   <prefix>device-user:{<digest>}      the device authorization a user code names (`<grantId>.<digest>`)
 *   <prefix>jti:<jti>                   denylisted access token
 *   <prefix>attempts:{<digest>}         attempt counter (sign-in, registration)
 *   <prefix>attempts:{<digest>}:checking  how many of its attempts are in flight
 *   <prefix>dpop:{<jkt>}:<digest>       DPoP proof seen (RFC 9449 §11.1), by key thumbprint and jti digest
 *   <prefix>assertion:{<digest>}:<digest>  client assertion seen (RFC 7523), by client id digest and jti digest
 *   <prefix>{readyz}:<instance>         readiness probe (5 s), one per process
 *   <prefix>upstream:{<digest>}         an upstream sign-in in progress, by the digest of its state: `<binding digest>.<sealed>`
 *   <prefix>{sub:<digest>}:profile      a federated user's profile (the claims the upstream last brought)
 *   <prefix>{<grantId>}:upstream        the upstream tokens a grant holds (sealed)
 *   <prefix>session:{<sid>}:upstream    the upstream tokens of a browser session, until a grant takes them (sealed)
 *   <prefix>client:{<client_id>}        registered client (RFC 7591): metadata and digests
 *   <prefix>{sub:<digest>}:grants       a user's grants (sorted set scored by expiry)
 *   <prefix>{sub:<digest>}:consents     a user's remembered consents (hash: client id → expiry and consent)
 *   <prefix>{client:<digest>}:grants    a client's grants (sorted set scored by expiry)
 *   <prefix>{client:<digest>}:consents  the users who consented to a client (sorted set of subs scored by expiry)
 *   <prefix>{entries}:kind:<kind>       the admin API's entries of one kind (hash: id → rev, times, sequence, document)
 *   <prefix>{entries}:ids:<kind>        their ids, scored by creation sequence (sorted set: listing)
 *   <prefix>{entries}:version           bumped by every entry write (counter)
 *   <prefix>{entries}:changes           the shard channel each entry write announces itself on (SPUBLISH), not a key
 *   <prefix>{registrations}:ids|expiries|details   the registered clients listed (src/store/lua-listings.ts)
 *   <prefix>{federated}:ids|expiries|details       the federated users listed: their provider and last sign-in
 * The `{entries}` keys are configuration and have no TTL (like the refresh-token key).
 * Redis Cluster hashes only what is inside the first `{...}` of a key, so:
 * - the `{grantId}` tag puts every key of one grant in one slot: the multi-key scripts
 *   (a code redemption touches the code and the family, a rotation the family and its
 *   grace record) run on one node;
 * - keys outside a grant are single-key commands and each gets its own slot: an
 *   attempt counter is its own tag, and so is a registered client's id; a denylisted `jti` key has no braces at all, so the
 *   whole key is hashed (our `jti` values are base64url, never braces). Nothing shares
 *   one global tag that would pin all of them to one node;
 * - a user's keys share `{sub:<digest>}` and a client's index has `{client:<digest>}`: the
 *   SHA-256 of the sub or client id, so any value (braces, spaces, long) makes a valid tag
 *   and no identifier sits in Redis in clear; a grant's own keys stay under `{grantId}`;
 * - a listing's keys share its name as their tag (`{registrations}`, `{federated}`): the
 *   records they list keep their own keys and slots, each listed in a second write;
 * - the admin API's entries share the one `{entries}` tag: a write touches its kind's hash,
 *   the index and the version and announces itself in one script, and a snapshot reads them
 *   all at once; they are configuration (thousands at most), so one slot holds them well;
 * - the prefix never contains `{` or `}` (config refuses it): a tag in the prefix would
 *   be the first one, and every key would land in its slot.
 */
export class RedisKeys {
  constructor(private readonly prefix: string) {}

  code(ref: OpaqueTokenRef): string {
    return `${this.prefix}{${ref.grantId}}:code:${ref.digest}`;
  }

  family(grantId: string): string {
    return `${this.prefix}{${grantId}}:family`;
  }

  /** The sealed successor response kept for the grace window of the family's token just rotated. */
  grace(grantId: string): string {
    return `${this.prefix}{${grantId}}:grace`;
  }

  /** Written with the grant's index entries, so `grants revoke <grant-id>` can tell a grant from a typo. */
  indexedGrant(grantId: string): string {
    return `${this.prefix}{${grantId}}:indexed`;
  }

  /** A device authorization (RFC 8628), under the tag of the grant it starts (the public half of its device code). */
  deviceAuthorization(ref: OpaqueTokenRef): string {
    return `${this.prefix}{${ref.grantId}}:device:${ref.digest}`;
  }

  /** The digest of a normalised user code is base64url, never braces: each user code its own slot. */
  deviceUserCode(digest: string): string {
    return `${this.prefix}device-user:{${digest}}`;
  }

  /** Its own tag: read once per process, it pins no grant's slot. */
  refreshTokenKey(): string {
    return `${this.prefix}{refresh-token-key}`;
  }

  /** A token of a legacy family (see src/store/lua-legacy.ts). */
  legacyRefreshToken(ref: OpaqueTokenRef): string {
    return `${this.prefix}{${ref.grantId}}:rt:${ref.digest}`;
  }

  /** The legacy grace record of the rotated token `ref`. */
  legacyGrace(ref: OpaqueTokenRef): string {
    return `${this.prefix}{${ref.grantId}}:grace:${ref.digest}`;
  }

  deniedAccessToken(jti: string): string {
    return `${this.prefix}jti:${jti}`;
  }

  /**
   * Counter keys hold a digest, so usernames and addresses do not sit in Redis in clear;
   * each counter is its own hash tag, so counters spread over a Cluster's slots.
   */
  attempts(counter: string): string {
    return `${this.prefix}attempts:{${tagOf(counter)}}`;
  }

  /** Beside its counter, under the same tag: the scripts touch both in one step. */
  attemptsInFlight(counter: string): string {
    return `${this.attempts(counter)}:checking`;
  }

  /**
   * One proof key's proofs share its thumbprint (base64url, never braces) as their tag;
   * different keys spread over the slots.
   */
  dpopProof(jkt: string, jti: string): string {
    const [thumbprint, digest] = dpopProofKey(jkt, jti);
    return `${this.prefix}dpop:{${thumbprint}}:${digest}`;
  }

  /** One client's assertions share the digest of its id as their tag; clients spread over the slots. */
  clientAssertion(clientId: string, jti: string): string {
    const [client, digest] = clientAssertionKey(clientId, jti);
    return `${this.prefix}assertion:{${client}}:${digest}`;
  }

  /** Our client ids are `dyn_` and base64url, never braces (src/clients/registered-client.ts). */
  clientRegistration(clientId: string): string {
    return `${this.prefix}client:{${clientId}}`;
  }

  userGrants(sub: string): string {
    return `${this.prefix}{sub:${tagOf(sub)}}:grants`;
  }

  userConsents(sub: string): string {
    return `${this.prefix}{sub:${tagOf(sub)}}:consents`;
  }

  clientGrants(clientId: string): string {
    return `${this.prefix}{client:${tagOf(clientId)}}:grants`;
  }

  clientConsents(clientId: string): string {
    return `${this.prefix}{client:${tagOf(clientId)}}:consents`;
  }

  /** The digest is base64url, never braces. */
  upstreamSignIn(stateDigest: string): string {
    return `${this.prefix}upstream:{${stateDigest}}`;
  }

  federatedProfile(sub: string): string {
    return `${this.prefix}{sub:${tagOf(sub)}}:profile`;
  }

  /** Under the grant's tag, beside its family: the scripts read the revocation mark in the same step. */
  grantUpstreamTokens(grantId: string): string {
    return `${this.prefix}{${grantId}}:upstream`;
  }

  /** Session ids are random base64url, never braces. */
  sessionUpstreamTokens(sessionId: string): string {
    return `${this.prefix}session:{${sessionId}}:upstream`;
  }

  /** One hash per kind: the entries' ids are its fields, so any id is fine in it (no tag to break). */
  entries(kind: EntryKind): string {
    return `${this.prefix}{entries}:kind:${kind}`;
  }

  entryIds(kind: EntryKind): string {
    return `${this.prefix}{entries}:ids:${kind}`;
  }

  entriesVersion(): string {
    return `${this.prefix}{entries}:version`;
  }

  /** The shard channel of entry changes: in the `{entries}` slot, so the writing script may publish on it. */
  entryChanges(): string {
    return `${this.prefix}{entries}:changes`;
  }

  /** A listing's three keys (ids, expiries, details) under its own tag: one slot for the scripts that page through it. */
  listing(name: ListingName): [ids: string, expiries: string, details: string] {
    return [`${this.prefix}{${name}}:ids`, `${this.prefix}{${name}}:expiries`, `${this.prefix}{${name}}:details`];
  }

  readinessProbe(instance: string): string {
    return `${this.prefix}{readyz}:${instance}`;
  }
}

/** The listings of records kept in keys of their own (src/store/lua-listings.ts). */
export type ListingName = 'registrations' | 'federated';

/** A hash tag for any identifier: its SHA-256, base64url (never a brace). */
function tagOf(value: string): string {
  return sha256Base64url(value);
}
