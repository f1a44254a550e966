/** Why a fetch of a client-controlled URL was refused or failed; callers narrow on `code`. */
export type FetchFailureCode =
  | 'bad_url'
  | 'insecure_scheme'
  | 'special_use_address'
  | 'unresolvable'
  | 'network'
  | 'timeout'
  | 'status'
  | 'content_type'
  | 'content_encoding'
  | 'too_large'
  | 'malformed_json'
  /** Not started: no fetch slot free (fetch-slots.ts). */
  | 'busy'
  /** Not started: the host failed a moment ago (document-cache.ts). */
  | 'backing_off';

/** What a name's resolution decides holds for every URL of the host. */
const HOST_WIDE_CODES: ReadonlySet<FetchFailureCode> = new Set(['unresolvable', 'special_use_address']);

export class FetchFailed extends Error {
  /**
   * The failure is the host's, whatever the path: its name does not resolve or resolves to a
   * special-use address, or no connection to it could be made. Any other URL of the host
   * would fail the same way; a failure after the connection (a status, a slow body) is the
   * URL's, and could be provoked on any host by naming a bad path.
   */
  readonly hostWide: boolean;

  constructor(
    readonly code: FetchFailureCode,
    message: string,
    options?: { cause?: unknown; hostWide?: boolean },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FetchFailed';
    this.hostWide = options?.hostWide ?? HOST_WIDE_CODES.has(code);
  }
}
