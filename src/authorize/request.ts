import type { ClientDirectory } from '../clients/directory.js';
import type { Client } from '../clients/registry.js';
import {
  InvalidRequest,
  OAuthError,
  RequestNotSupported,
  RequestUriNotSupported,
  UnauthorizedClient,
  UnsupportedResponseType,
} from '../errors/index.js';
import { isRepeatable } from '../oauth/form-params.js';
import { CODE_CHALLENGE_METHOD, isWellFormedCodeChallenge } from '../oauth/pkce.js';
import { parseMaxAge, parsePrompt, type PromptValue } from '../oauth/prompt.js';
import { resolveRedirectUri } from '../oauth/redirect-uri.js';
import {
  defaultResponseMode,
  isModeAllowed,
  isResponseMode,
  isResponseType,
  type ResponseTarget,
  type ResponseType,
} from '../oauth/response-mode.js';
import { type ResourceLookup, resolveNewTarget } from '../resources/indicators.js';
import type { ProtectedResource } from '../resources/registry.js';

/**
 * Validation of an authorization request (RFC 6749 §4.1.1, §4.2.1, RFC 7636 §4.3). Pure:
 * no HTTP. It returns the valid request or throws an OAuthError; errors found once the
 * client and its redirect URI are known carry `redirectTo`, the others must not redirect.
 */

export type { Parameters } from '../oauth/form-params.js';
import type { Parameters } from '../oauth/form-params.js';

export interface AuthorizationRequest extends ResponseTarget {
  readonly client: Client;
  readonly responseType: ResponseType;
  readonly redirectUriSent: boolean;
  readonly scope: readonly string[];
  /** The resources requested (RFC 8707 §2.1), each registered; the consent page names them. */
  readonly resources: readonly ProtectedResource[];
  readonly codeChallenge: string | undefined;
  /** `prompt` (none, login, consent; never none with another). */
  readonly prompt: ReadonlySet<PromptValue>;
  /** `max_age`, in seconds: sign in again when the session's sign-in is older. */
  readonly maxAge: number | undefined;
  /** RFC 9449 §10: the thumbprint of the DPoP key the code is bound to. */
  readonly dpopJkt: string | undefined;
  /** OpenID Connect Core §3.1.2.1: echoed in the ID token. */
  readonly nonce: string | undefined;
  /** §3.1.2.1: an ID token we issued, naming the user the client expects (checked by the pipeline). */
  readonly idTokenHint: string | undefined;
  /** §3.1.2.1: the username (or email) the login page starts with. */
  readonly loginHint: string | undefined;
  /** The request's parameters as received (empty ones dropped), carried through login and consent. */
  readonly parameters: Parameters;
}

interface ReceivedParameters {
  readonly values: ReadonlyMap<string, string>;
  readonly repeated: ReadonlySet<string>;
  /** Every value of the one repeatable parameter (RFC 8707 §2.1: several `resource`). */
  readonly resource: readonly string[];
  readonly parameters: Parameters;
}

/** RFC 6749 §3.1: "Parameters sent without a value MUST be treated as if they were omitted". */
function receive(received: Parameters): ReceivedParameters {
  const parameters = received.filter(([, value]) => value !== '');
  const values = new Map<string, string>();
  const repeated = new Set<string>();
  for (const [name, value] of parameters) {
    if (isRepeatable(name)) continue;
    if (values.has(name)) repeated.add(name);
    else values.set(name, value);
  }
  const resource = parameters.filter(([name]) => name === 'resource').map(([, value]) => value);
  return { values, repeated, resource, parameters };
}

export interface AuthorizationRegistries {
  readonly clients: ClientDirectory;
  readonly resources: ResourceLookup;
}

export async function validateAuthorizationRequest(
  received: Parameters,
  registries: AuthorizationRegistries,
  codeResponseMode: 'query' | 'fragment',
): Promise<AuthorizationRequest> {
  const { values, repeated, resource, parameters } = receive(received);
  const { clients } = registries;

  // §4.1.2.1: without a valid client and redirect URI, "the authorization server SHOULD
  // inform the resource owner of the error and MUST NOT automatically redirect".
  const clientId = values.get('client_id');
  if (repeated.has('client_id')) throw new InvalidRequest('client_id is repeated');
  if (clientId === undefined) throw new InvalidRequest('client_id is missing');
  const client = await clients.find(clientId);
  if (!client) throw new InvalidRequest('the client is not registered');
  if (repeated.has('redirect_uri')) throw new InvalidRequest('redirect_uri is repeated');
  const redirect = resolveRedirectUri(values.get('redirect_uri'), client.redirectUris);
  if (!redirect.ok) throw new InvalidRequest(redirect.reason);

  const responseTypeValue = values.get('response_type');
  const responseType = responseTypeValue !== undefined && isResponseType(responseTypeValue) ? responseTypeValue : undefined;
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

  // Every later error goes back to the client at `target`.
  try {
    // §3.1: "Request and response parameters MUST NOT be included more than once."
    const firstRepeated = [...repeated][0];
    if (firstRepeated !== undefined) throw new InvalidRequest(`parameter '${firstRepeated}' is repeated`);
    if (responseTypeValue === undefined) throw new InvalidRequest('response_type is required');
    if (!responseType) throw new UnsupportedResponseType('response_type must be code or token');
    if (requestedMode !== undefined && !usableMode) {
      throw new InvalidRequest(
        isResponseMode(requestedMode)
          ? 'response_mode=query is not allowed with response_type=token'
          : 'response_mode must be query, fragment or form_post',
      );
    }
    if (!client.responseTypes.has(responseType))
      throw new UnauthorizedClient(`this client is not registered for response_type ${responseType}`);
    // The user consents on the next page, so a client registered without scope may ask for what the resources accept.
    const access = resolveNewTarget({ resource, scope: values.get('scope') }, client.scope, registries.resources, true);
    const { resources } = access;
    const scope = offlineAccessUsable(client, responseType) ? access.scope : access.scope.filter((s) => s !== 'offline_access');
    const codeChallenge =
      responseType === 'code' ? checkPkce(values.get('code_challenge'), values.get('code_challenge_method'), client) : undefined;
    const prompt = parsePrompt(values.get('prompt'));
    // OpenID Connect Registration §2: default_max_age applies "when no max_age value is specified in the request".
    const maxAge = parseMaxAge(values.get('max_age')) ?? client.defaultMaxAge;
    const dpopJkt = checkDpopJkt(values.get('dpop_jkt'), responseType);
    // OpenID Connect Core §6: "request_not_supported: The OP does not support use of the
    // request parameter"; likewise request_uri. Discovery says both are false.
    if (values.has('request')) throw new RequestNotSupported('request objects are not supported: send the parameters themselves');
    if (values.has('request_uri')) throw new RequestUriNotSupported('request_uri is not supported: send the parameters themselves');
    const nonce = bounded('nonce', values.get('nonce'));
    const idTokenHint = bounded('id_token_hint', values.get('id_token_hint'), MAX_ID_TOKEN_HINT_LENGTH);
    const loginHint = bounded('login_hint', values.get('login_hint'));
    return {
      ...target,
      client,
      responseType,
      redirectUriSent: redirect.sent,
      scope,
      resources,
      codeChallenge,
      prompt,
      maxAge,
      dpopJkt,
      nonce,
      idTokenHint,
      loginHint,
      parameters,
    };
  } catch (err) {
    if (err instanceof OAuthError) throw err.redirectingTo(target);
    throw err;
  }
}

/**
 * OpenID Connect Core §11: "The Authorization Server MUST ignore the offline_access request
 * unless the Client is using a response_type value that would result in an Authorization Code
 * being returned". Likewise for a client that never gets refresh tokens (no `refresh_token` in
 * its grant_types, SEP-2207): neither is asked nor granted what it cannot have.
 */
function offlineAccessUsable(client: Client, responseType: ResponseType): boolean {
  return responseType === 'code' && client.grantTypes.has('refresh_token');
}

/** Of `candidates`, the scopes `request` could have asked for as well: its client's and resources' limits, the same rules. */
export function scopeAlsoAllowed(
  request: Pick<AuthorizationRequest, 'resources' | 'client' | 'responseType'>,
  candidates: readonly string[],
  resources: ResourceLookup,
): string[] {
  const resource = request.resources.map((r) => r.resource);
  return candidates.filter((scope) => {
    if (scope === 'offline_access' && !offlineAccessUsable(request.client, request.responseType)) return false;
    try {
      return resolveNewTarget({ resource, scope }, request.client.scope, resources, true).scope.includes(scope);
    } catch (err) {
      if (err instanceof OAuthError) return false;
      throw err;
    }
  });
}

/**
 * RFC 9449 §10: "dpop_jkt: The value of the dpop_jkt authorization request parameter is the
 * JWK Thumbprint [RFC7638] of the proof-of-possession public key using the SHA-256 hash
 * function". It binds the code; an implicit token could not honour it, so it is refused there.
 */
function checkDpopJkt(value: string | undefined, responseType: ResponseType): string | undefined {
  if (value === undefined) return undefined;
  if (responseType !== 'code') throw new InvalidRequest('dpop_jkt is only available with response_type=code');
  if (!/^[A-Za-z0-9_-]{43}$/.test(value)) throw new InvalidRequest('dpop_jkt must be the base64url SHA-256 JWK thumbprint of the DPoP key');
  return value;
}

/** RFC 7636 §4.3 with S256 only; required for public clients (RFC 9700 §2.1.1). */
function checkPkce(challenge: string | undefined, method: string | undefined, client: Client): string | undefined {
  if (challenge === undefined) {
    if (method !== undefined) throw new InvalidRequest('code_challenge is required with code_challenge_method');
    if (client.authMethod === 'none')
      throw new InvalidRequest('PKCE is required for this client: send code_challenge with code_challenge_method=S256');
    return undefined;
  }
  // §4.3: "Defaults to "plain" if not present in the request." We accept only S256.
  if (method !== CODE_CHALLENGE_METHOD) throw new InvalidRequest('code_challenge_method must be S256');
  if (!isWellFormedCodeChallenge(challenge))
    throw new InvalidRequest('code_challenge must be 43-128 unreserved characters (RFC 7636 section 4.2)');
  return challenge;
}

/** The most characters of `nonce` and `login_hint` we keep (they travel in codes and forms). */
const MAX_HINT_LENGTH = 512;
/** An ID token with its claims and an RSA signature fits easily. */
const MAX_ID_TOKEN_HINT_LENGTH = 4096;

/** A free-form parameter, refused when longer than we keep. */
function bounded(name: string, value: string | undefined, max = MAX_HINT_LENGTH): string | undefined {
  if (value !== undefined && value.length > max) throw new InvalidRequest(`${name} must be at most ${max} characters`);
  return value;
}
