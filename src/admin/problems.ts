/**
 * What the admin services refuse with, as values the HTTP layer turns into RFC 9457 problem
 * details (`type`, `title`, `status`, `detail`; `errors` for a validation). The types are
 * stable URNs, never dereferenced. A store that does not answer is StoreUnavailableError, as
 * everywhere (the API: `store-unavailable`, 503).
 */

export const PROBLEM_NAMES = [
  'validation',
  'not-found',
  'conflict-file-entry',
  'conflict-exists',
  'precondition-failed',
  'unauthorized',
  'insufficient-scope',
  'payload-too-large',
  'unsupported-media-type',
  'store-unavailable',
] as const;
export type ProblemName = (typeof PROBLEM_NAMES)[number];

export function problemType(name: ProblemName): string {
  return `urn:oauth2-token-service:problem:${name}`;
}

/** One field and what is wrong with it (`redirect_uris.0`, `must not have a fragment`). */
export interface FieldProblem {
  readonly field: string;
  readonly problem: string;
}

export class AdminProblem extends Error {
  constructor(
    readonly problem: ProblemName,
    readonly status: number,
    readonly title: string,
    detail: string,
    readonly errors: readonly FieldProblem[] = [],
  ) {
    super(detail);
    this.name = 'AdminProblem';
  }

  get type(): string {
    return problemType(this.problem);
  }

  get detail(): string {
    return this.message;
  }
}

export class ValidationProblem extends AdminProblem {
  constructor(detail: string, errors: readonly FieldProblem[]) {
    super('validation', 400, 'The entry is not valid', detail, errors);
  }
}

export class NotFound extends AdminProblem {
  constructor(detail: string) {
    super('not-found', 404, 'No such entry', detail);
  }
}

/** The id belongs to a file entry: read-only here, changed in its file. */
export class FileEntryConflict extends AdminProblem {
  constructor(detail: string) {
    super('conflict-file-entry', 409, 'The entry is declared in a file', detail);
  }
}

export class AlreadyExists extends AdminProblem {
  constructor(detail: string) {
    super('conflict-exists', 409, 'The entry exists already', detail);
  }
}

/** If-Match named another rev: nothing was written. */
export class PreconditionFailed extends AdminProblem {
  constructor(
    detail: string,
    /** The entry's rev now. */
    readonly currentRev: number,
  ) {
    super('precondition-failed', 412, 'The entry has changed', detail);
  }
}
