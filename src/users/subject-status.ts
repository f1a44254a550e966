import { z } from 'zod';
import type { User } from './registry.js';

/**
 * What an operator has marked on a subject: any `sub`, a user of USERS_FILE or of the store,
 * or a federated user who signed in through a provider (the `subject` entries of the admin
 * API, followed in process by src/entries/). Every check here is in memory: the token
 * endpoint, the session cookie and the sign-in pay no store round trip for it.
 */

/** A subject entry's document: `{"disabled": true, "sessions_revoked_at": 1767225600}`. */
export const SubjectMarkSchema = z
  .object({
    /** No sign-in, no refresh, no session while true. */
    disabled: z.boolean().default(false),
    /** Sessions issued at or before this time (seconds since the epoch) have ended. */
    sessions_revoked_at: z.number().int().min(0).optional(),
  })
  .strict();

export type SubjectMarkDocument = z.input<typeof SubjectMarkSchema>;

export interface SubjectMark {
  readonly disabled: boolean;
  readonly sessionsRevokedAt?: number | undefined;
}

export interface SubjectMarks {
  markOf(sub: string): SubjectMark | undefined;
}

export const NO_SUBJECT_MARKS: SubjectMarks = { markOf: () => undefined };

/** The checks every way in makes: sign-in, refresh, a session cookie read. */
export interface SubjectChecks {
  /** Disabled as a user (`"disabled": true`) or by a subject mark. */
  isDisabled(sub: string): boolean;
  /** Whether a session of `sub` issued at `issuedAt` (seconds) still stands: not disabled, not issued at or before sessions_revoked_at. */
  sessionStands(sub: string, issuedAt: number): boolean;
}

/** Nothing marked: what code without an operator's marks (the CLI, tests of one step) uses. */
export const NO_SUBJECT_CHECKS: SubjectChecks = { isDisabled: () => false, sessionStands: () => true };

export class SubjectStatus implements SubjectChecks {
  constructor(
    private readonly users: { bySub(sub: string): User | undefined },
    private readonly marks: SubjectMarks = NO_SUBJECT_MARKS,
  ) {}

  isDisabled(sub: string): boolean {
    return this.users.bySub(sub)?.disabled === true || this.marks.markOf(sub)?.disabled === true;
  }

  sessionStands(sub: string, issuedAt: number): boolean {
    if (this.isDisabled(sub)) return false;
    const revokedAt = this.marks.markOf(sub)?.sessionsRevokedAt;
    return revokedAt === undefined || issuedAt > revokedAt;
  }
}
