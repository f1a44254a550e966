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
  | 'busy';

export class FetchFailed extends Error {
  constructor(
    readonly code: FetchFailureCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FetchFailed';
  }
}
