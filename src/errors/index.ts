/**
 * The one OAuthError hierarchy: every protocol failure is a subclass whose `error` is its
 * RFC code (callers and tests narrow on `err.error`), mapped to RFC JSON or a redirect by
 * the one error handler of each surface. The classes live by the RFC that defines them.
 */
export * from './oauth-error.js';
export * from './rfc6749.js';
export * from './extensions.js';
export * from './rfc8628.js';

/** Raised by a store when it cannot confirm an operation (timeout, connection lost). */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
