import type { Client, ClientRegistry } from '../clients/registry.js';
import { InvalidRequest, InvalidScope, UnauthorizedClient, UnsupportedResponseType, type OAuthError } from '../errors.js';
import { resolveRequestedScope } from '../grants/scope-request.js';
import { CODE_CHALLENGE_METHOD, isWellFormedCodeChallenge } from '../oauth/pkce.js';
import { resolveRedirectUri } from '../oauth/redirect-uri.js';
import {
  defaultResponseMode,
  isModeAllowed,
  isResponseMode,
  type ResponseMode,
  type ResponseType,
} from '../oauth/response-mode.js';

/** Validation of an authorization request (RFC 6749 §4.1.1, §4.2.1, RFC 7636 §4.3). Pure: no HTTP. */

export type Parameters = ReadonlyArray<readonly [string, string]>;

/** Where and how the authorization response (or error) goes. */
export interface ResponseTarget {
  readonly redirectUri: string;
  readonly responseMode: ResponseMode;
  readonly state: string | undefined;
}

export interface AuthorizationRequest extends ResponseTarget {
  readonly client: Client;
  readonly responseType: ResponseType;
  readonly redirectUriSent: boolean;
  readonly scope: readonly string[];
  readonly codeChallenge: string | undefined;
  /** The request's parameters as received (empty ones dropped), carried through login and consent. */
  readonly parameters: Parameters;
}

export type AuthorizationRequestOutcome =
  /** RFC 6749 §4.1.2.1: no valid client or redirect URI, so the user must not be redirected. */
  | { readonly outcome: 'refused'; readonly description: string }
  /** Every later error goes back to the client. */
  | { readonly outcome: 'error'; readonly target: ResponseTarget; readonly error: OAuthError }
  | { readonly outcome: 'valid'; readonly request: AuthorizationRequest };

const RESPONSE_TYPES: readonly string[] = ['code', 'token'];

export function validateAuthorizationRequest(
  received: Parameters,
  clients: ClientRegistry,
  codeResponseMode: 'query' | 'fragment',
): AuthorizationRequestOutcome {
  // RFC 6749 §3.1: "Parameters sent without a value MUST be treated as if they were omitted".
  const parameters = received.filter(([, value]) => value !== '');
  const values = new Map<string, string>();
  const repeated = new Set<string>();
  for (const [name, value] of parameters) {
    if (values.has(name)) repeated.add(name);
    else values.set(name, value);
  }

  const clientId = values.get('client_id');
  if (repeated.has('client_id')) return refused('client_id is repeated');
  if (clientId === undefined) return refused('client_id is missing');
  const client = clients.get(clientId);
  if (!client) return refused('the client is not registered');
  if (repeated.has('redirect_uri')) return refused('redirect_uri is repeated');
  const redirect = resolveRedirectUri(values.get('redirect_uri'), client.redirectUris);
  if (!redirect.ok) return refused(redirect.reason);

  const responseTypeValue = values.get('response_type');
  const responseType = RESPONSE_TYPES.includes(responseTypeValue ?? '') ? (responseTypeValue as ResponseType) : undefined;
  const requestedMode = values.get('response_mode');
  const usableMode =
    requestedMode !== undefined && isResponseMode(requestedMode) && (!responseType || isModeAllowed(responseType, requestedMode))
      ? requestedMode
      : undefined;
  const target: ResponseTarget = {
    redirectUri: redirect.redirectUri,
    responseMode: usableMode ?? defaultResponseMode(responseType, codeResponseMode),
    state: repeated.has('state') ? undefined : values.get('state'),
  };
  const fail = (error: OAuthError): AuthorizationRequestOutcome => ({ outcome: 'error', target, error });

  // RFC 6749 §3.1: "Request and response parameters MUST NOT be included more than once."
  const firstRepeated = [...repeated][0];
  if (firstRepeated !== undefined) return fail(new InvalidRequest(`parameter "${firstRepeated}" is repeated`));
  if (responseTypeValue === undefined) return fail(new InvalidRequest('response_type is required'));
  if (!responseType) return fail(new UnsupportedResponseType('response_type must be code or token'));
  if (requestedMode !== undefined && !usableMode) {
    return fail(
      new InvalidRequest(
        isResponseMode(requestedMode)
          ? 'response_mode=query is not allowed with response_type=token'
          : 'response_mode must be query, fragment or form_post',
      ),
    );
  }
  if (!client.responseTypes.has(responseType)) {
    return fail(new UnauthorizedClient(`this client is not registered for response_type ${responseType}`));
  }

  let scope: readonly string[];
  try {
    scope = resolveRequestedScope(values.get('scope'), client.scope);
  } catch (err) {
    return fail(err as InvalidScope);
  }

  let codeChallenge: string | undefined;
  if (responseType === 'code') {
    const pkce = checkPkce(values.get('code_challenge'), values.get('code_challenge_method'), client);
    if (pkce instanceof InvalidRequest) return fail(pkce);
    codeChallenge = pkce;
  }

  return {
    outcome: 'valid',
    request: { ...target, client, responseType, redirectUriSent: redirect.sent, scope, codeChallenge, parameters },
  };
}

/** RFC 7636 §4.3 with S256 only; required for public clients (RFC 9700 §2.1.1). */
function checkPkce(challenge: string | undefined, method: string | undefined, client: Client): string | undefined | InvalidRequest {
  if (challenge === undefined) {
    if (method !== undefined) return new InvalidRequest('code_challenge is required with code_challenge_method');
    if (client.authMethod === 'none') return new InvalidRequest('PKCE is required for this client: send code_challenge with code_challenge_method=S256');
    return undefined;
  }
  // §4.3: "Defaults to "plain" if not present in the request." We accept only S256.
  if (method !== CODE_CHALLENGE_METHOD) return new InvalidRequest('code_challenge_method must be S256');
  if (!isWellFormedCodeChallenge(challenge)) return new InvalidRequest('code_challenge must be 43-128 unreserved characters (RFC 7636 §4.2)');
  return challenge;
}

function refused(description: string): AuthorizationRequestOutcome {
  return { outcome: 'refused', description };
}
