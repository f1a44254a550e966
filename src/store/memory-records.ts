import type { AuthorizationCodeRecord } from './types.js';
import type { Expiring } from './expiring-map.js';

/** What the memory store (memory.ts) keeps per code, refresh family and grace record. */

export interface CodeEntry extends Expiring {
  readonly record: AuthorizationCodeRecord;
  used: boolean;
}

/** A family as Redis keeps it (src/store/lua.ts): constant size; `generation` undefined for a revocation mark only. */
export interface FamilyEntry extends Expiring {
  generation: number | undefined;
  current: string;
  previous: string | undefined;
  idleDeadline: number;
  issuedAt: number;
  revoked: boolean;
}

/** The one grace record of a family. */
export interface GraceEntry extends Expiring {
  readonly sealed: string;
  used: boolean;
}
