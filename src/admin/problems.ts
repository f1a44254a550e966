import type { z } from 'zod';

/**
 * The errors of the admin API, as RFC 9457 problem details: a stable `type` a client acts
 * on (a URN, never dereferenced), a `title` per type, the `status`, and a `detail` for
 * this occurrence; a validation problem lists each field and its problem in `errors`.
 * Domain code throws `AdminProblem`; the admin routes write it as `application/problem+json`.
 */

export const PROBLEM_TYPE_PREFIX = 'urn:oauth2-token-service:problem:';

const PROBLEMS = {
  validation: { status: 400, title: 'The request is not valid' },
  'invalid-json': { status: 400, title: 'The body is not valid JSON' },
  unauthorized: { status: 401, title: 'An access token for the admin API is required' },
  'insufficient-scope': { status: 403, title: 'The access token lacks the scope this request needs' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'The method is not allowed here' },
  'conflict-file-entry': { status: 409, title: 'The entry comes from a file and is read-only here' },
  'conflict-exists': { status: 409, title: 'An entry with this id exists already' },
  'conflict-federated': { status: 409, title: 'The user signs in through an identity provider: only disabled can change here' },
  'conflict-registration': { status: 409, title: 'The client is dynamically registered: it can only be deleted here' },
  'conflict-self': { status: 409, title: 'Nobody disables, demotes or deletes their own account: another administrator has to' },
  'precondition-failed': { status: 412, title: 'The entry changed since it was read (If-Match)' },
  'payload-too-large': { status: 413, title: 'The body is larger than 64 KiB' },
  'unsupported-media-type': { status: 415, title: 'The body must be JSON' },
  'store-unavailable': { status: 503, title: 'The store is unavailable; retry later' },
  'internal-error': { status: 500, title: 'Internal error' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemName = keyof typeof PROBLEMS;

export const PROBLEM_NAMES = Object.keys(PROBLEMS) as ProblemName[];

export function problemStatus(name: ProblemName): number {
  return PROBLEMS[name].status;
}

/** One field of a request and what is wrong with it: `redirect_uris.0`, `limit`; `(body)` for the body as a whole. */
export interface FieldProblem {
  readonly field: string;
  readonly problem: string;
}

/** The RFC 9457 members we write (§3.1), and `errors` for a validation problem. */
export interface ProblemDocument {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly errors?: readonly FieldProblem[];
  readonly scope?: string;
}

export class AdminProblem extends Error {
  readonly status: number;

  constructor(
    readonly code: ProblemName,
    readonly detail: string,
    readonly extras: {
      readonly errors?: readonly FieldProblem[];
      /** Sent as Retry-After (store-unavailable). */
      readonly retryAfterSeconds?: number;
      /** Sent as Allow (method-not-allowed). */
      readonly allow?: string;
      /** Sent as WWW-Authenticate (unauthorized, insufficient-scope). */
      readonly wwwAuthenticate?: string;
      /** insufficient-scope: the scope the request needs, also a member of the document. */
      readonly scope?: string;
    } = {},
    options?: { cause?: unknown },
  ) {
    super(detail, options);
    this.name = 'AdminProblem';
    this.status = PROBLEMS[code].status;
  }

  /** The problem's URN (`type`), its title, and the fields of a validation problem. */
  get type(): string {
    return `${PROBLEM_TYPE_PREFIX}${this.code}`;
  }

  get title(): string {
    return PROBLEMS[this.code].title;
  }

  get errors(): readonly FieldProblem[] {
    return this.extras.errors ?? [];
  }

  toJSON(): ProblemDocument {
    return {
      type: this.type,
      title: this.title,
      status: this.status,
      detail: this.detail,
      ...(this.extras.errors ? { errors: this.extras.errors } : {}),
      ...(this.extras.scope !== undefined ? { scope: this.extras.scope } : {}),
    };
  }
}

/** Where a value came from: its field names are prefixed by nothing (body, query) or name the path parameter. */
function fieldOf(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(body)' : path.map(String).join('.');
}

/**
 * A validation problem from zod's issues, one entry per field (an unknown field is one
 * entry of its own: unknown fields are refused, never dropped).
 */
export function validationProblem(issues: readonly z.core.$ZodIssue[], detail = 'the request has invalid fields'): AdminProblem {
  const errors: FieldProblem[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) errors.push({ field: fieldOf([...issue.path, key]), problem: 'unknown field' });
    } else {
      errors.push({ field: fieldOf(issue.path), problem: issue.message });
    }
  }
  return new AdminProblem('validation', detail, { errors });
}

/** What the admin services refuse with (src/admin/entries.ts and the services of each entity). */

export class ValidationProblem extends AdminProblem {
  constructor(detail: string, errors: readonly FieldProblem[]) {
    super('validation', detail, { errors });
  }
}

export class NotFound extends AdminProblem {
  constructor(detail: string) {
    super('not-found', detail);
  }
}

/** The id belongs to a file entry: read-only here, changed in its file. */
export class FileEntryConflict extends AdminProblem {
  constructor(detail: string) {
    super('conflict-file-entry', detail);
  }
}

export class AlreadyExists extends AdminProblem {
  constructor(detail: string) {
    super('conflict-exists', detail);
  }
}

/** If-Match named another rev: nothing was written. */
export class PreconditionFailed extends AdminProblem {
  constructor(
    detail: string,
    /** The entry's rev now. */
    readonly currentRev: number,
  ) {
    super('precondition-failed', detail);
  }
}
