import type { Clock } from '../clock.js';
import {
  CREATE_RECORD,
  INDEX_GRANT,
  LIST_GRANTS,
  MARK_INDEXED_GRANT,
  READ_CLIENT_REGISTRATION,
  READ_REFRESH_FAMILY,
  REDEEM_AUTHORIZATION_CODE,
  REFRESH_TOKEN_KEY,
  REMEMBER_CONSENT,
  REVOKE_GRANT,
  REVOKE_KNOWN_GRANT,
  ROTATE_REFRESH_FAMILY,
  START_REFRESH_FAMILY,
  UNLIST_UNCHANGED,
} from './lua.js';
import { CLEAR_ATTEMPTS, KEEP_ATTEMPT, RELEASE_ATTEMPT, RESERVE_ATTEMPT } from './lua-attempts.js';
import { FIND_GRANT_UPSTREAM_TOKENS, SAVE_GRANT_UPSTREAM_TOKENS, TAKE_UPSTREAM_SIGN_IN } from './lua-upstream.js';
import { DECIDE_DEVICE_AUTHORIZATION, POLL_DEVICE_AUTHORIZATION, START_DEVICE_AUTHORIZATION } from './lua-devices.js';
import { LEGACY_READ_REFRESH_TOKEN, LEGACY_ROTATE_REFRESH_TOKEN } from './lua-legacy.js';
import { CREATE_ENTRY, DELETE_ENTRY, LIST_ENTRIES, READ_ENTRIES, REPLACE_ENTRY } from './lua-entries.js';
import { LIST_MEMBER, PAGE_MEMBERS, READ_MEMBER, UNLIST_MEMBER } from './lua-listings.js';
import { ENTRY_KINDS } from './entry-types.js';
import type { RedisKeys } from './redis-keys.js';

/** Every script, registered once per client with `defineCommand`; each touches only the keys it is given. */
export const SCRIPTS = {
  createRecord: { lua: CREATE_RECORD, numberOfKeys: 1 },
  redeemAuthorizationCode: { lua: REDEEM_AUTHORIZATION_CODE, numberOfKeys: 3 },
  startRefreshFamily: { lua: START_REFRESH_FAMILY, numberOfKeys: 1 },
  readRefreshFamily: { lua: READ_REFRESH_FAMILY, numberOfKeys: 1 },
  rotateRefreshFamily: { lua: ROTATE_REFRESH_FAMILY, numberOfKeys: 2 },
  refreshTokenKey: { lua: REFRESH_TOKEN_KEY, numberOfKeys: 1 },
  revokeGrant: { lua: REVOKE_GRANT, numberOfKeys: 2 },
  reserveAttempt: { lua: RESERVE_ATTEMPT, numberOfKeys: 2 },
  keepAttempt: { lua: KEEP_ATTEMPT, numberOfKeys: 1 },
  releaseAttempt: { lua: RELEASE_ATTEMPT, numberOfKeys: 2 },
  clearAttempts: { lua: CLEAR_ATTEMPTS, numberOfKeys: 2 },
  legacyReadRefreshToken: { lua: LEGACY_READ_REFRESH_TOKEN, numberOfKeys: 2 },
  legacyRotateRefreshToken: { lua: LEGACY_ROTATE_REFRESH_TOKEN, numberOfKeys: 4 },
  readClientRegistration: { lua: READ_CLIENT_REGISTRATION, numberOfKeys: 1 },
  indexGrant: { lua: INDEX_GRANT, numberOfKeys: 1 },
  listGrants: { lua: LIST_GRANTS, numberOfKeys: 1 },
  rememberConsent: { lua: REMEMBER_CONSENT, numberOfKeys: 1 },
  markIndexedGrant: { lua: MARK_INDEXED_GRANT, numberOfKeys: 1 },
  revokeKnownGrant: { lua: REVOKE_KNOWN_GRANT, numberOfKeys: 3 },
  saveGrantUpstreamTokens: { lua: SAVE_GRANT_UPSTREAM_TOKENS, numberOfKeys: 2 },
  findGrantUpstreamTokens: { lua: FIND_GRANT_UPSTREAM_TOKENS, numberOfKeys: 2 },
  takeUpstreamSignIn: { lua: TAKE_UPSTREAM_SIGN_IN, numberOfKeys: 1 },
  unlistUnchanged: { lua: UNLIST_UNCHANGED, numberOfKeys: 1 },
  startDeviceAuthorization: { lua: START_DEVICE_AUTHORIZATION, numberOfKeys: 1 },
  decideDeviceAuthorization: { lua: DECIDE_DEVICE_AUTHORIZATION, numberOfKeys: 1 },
  pollDeviceAuthorization: { lua: POLL_DEVICE_AUTHORIZATION, numberOfKeys: 1 },
  createEntry: { lua: CREATE_ENTRY, numberOfKeys: 4 },
  replaceEntry: { lua: REPLACE_ENTRY, numberOfKeys: 3 },
  deleteEntry: { lua: DELETE_ENTRY, numberOfKeys: 4 },
  readEntries: { lua: READ_ENTRIES, numberOfKeys: 1 + ENTRY_KINDS.length },
  listEntries: { lua: LIST_ENTRIES, numberOfKeys: 2 },
  listMember: { lua: LIST_MEMBER, numberOfKeys: 3 },
  unlistMember: { lua: UNLIST_MEMBER, numberOfKeys: 3 },
  pageMembers: { lua: PAGE_MEMBERS, numberOfKeys: 3 },
  readMember: { lua: READ_MEMBER, numberOfKeys: 2 },
} as const;

export type ScriptName = keyof typeof SCRIPTS;
export type ScriptArgument = string | number;

/** What RedisStore lends the modules that run its scripts: key layout, clock, bounded calls. */
export interface ScriptCommands {
  readonly keys: RedisKeys;
  readonly clock: Clock;
  /** Runs one operation within the command timeout; any failure becomes StoreUnavailableError. */
  call<T>(operation: string, command: () => Promise<T>): Promise<T>;
  script<T>(name: ScriptName, keys: string[], args: ScriptArgument[]): Promise<T>;
  /**
   * A write that makes a token single-use (or revokes): with REDIS_MIN_REPLICAS_ACK, followed
   * by WAIT; a reply `standsUnacknowledged` accepts is answered whatever WAIT says (see replica-ack.ts).
   */
  acknowledgedScript<T>(name: ScriptName, keys: string[], args: ScriptArgument[], standsUnacknowledged?: (reply: T) => boolean): Promise<T>;
}
