import { AuthorizationResponseError, ResponseBodyError } from 'openid-client';
import { FetchFailed } from '../fetch/errors.js';
import type { FetchPolicy } from '../fetch/guard.js';
import type { safeFetch } from '../fetch/safe-request.js';
import { UpstreamSignInFailed } from './upstream.js';

/** What a provider gets from the server: its redirect URI at the provider, and how it may fetch. */
export interface UpstreamContext {
  /** `{ISSUER}/oauth2/upstream/{id}/callback`: the redirect URI registered at the provider. */
  readonly redirectUri: string;
  /** Where the provider sends the browser back after its sign-out (`end_session`). */
  readonly signedOutUri: string;
  /** A fetch through the SSRF-safe fetcher, with the provider's policy. */
  readonly fetch: ReturnType<typeof safeFetch>;
  /** IDENTITY_PROVIDERS_ALLOW_INSECURE: http:// providers (development and tests). */
  readonly allowInsecure: boolean;
}

/** Deadline and size limit of every request to a provider (discovery, JWKS, token, userinfo). */
export const UPSTREAM_FETCH = { timeoutMs: 10_000, maxBytes: 512 * 1024 } as const;

/** The fetch policy of a provider: https and public addresses, unless the operator allowed otherwise. */
export function upstreamFetchPolicy(options: {
  readonly allowInsecure: boolean;
  readonly allowPrivateAddresses: boolean;
  readonly ca?: string | undefined;
  readonly resolve?: FetchPolicy['resolve'];
}): FetchPolicy {
  return {
    allowHttp: options.allowInsecure,
    allowSpecialUseAddresses: options.allowInsecure || options.allowPrivateAddresses,
    ...UPSTREAM_FETCH,
    ca: options.ca,
    resolve: options.resolve,
  };
}

/**
 * Why a step with the provider failed, for the audit log (never its text for the user): the
 * user cancelled (`access_denied` at the provider), the provider answered an error, could
 * not be reached, or said something that did not pass the checks.
 */
export function upstreamFailure(err: unknown, step: string): UpstreamSignInFailed {
  if (err instanceof UpstreamSignInFailed) return err;
  if (err instanceof AuthorizationResponseError) {
    return err.error === 'access_denied'
      ? new UpstreamSignInFailed('cancelled', 'the user cancelled at the provider', { cause: err })
      : new UpstreamSignInFailed('upstream_error', `the provider answered ${err.error}`, { cause: err });
  }
  if (err instanceof ResponseBodyError)
    return new UpstreamSignInFailed('upstream_error', `${step}: the provider answered ${err.error}`, { cause: err });
  if (err instanceof FetchFailed || (err instanceof Error && err.cause instanceof FetchFailed))
    return new UpstreamSignInFailed('provider_unavailable', `${step}: the provider could not be reached`, { cause: err });
  return new UpstreamSignInFailed('invalid_response', `${step}: the provider's answer did not pass the checks`, { cause: err });
}
