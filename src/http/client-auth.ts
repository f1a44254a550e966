import type { FastifyRequest } from 'fastify';
import type { ClientAssertions } from '../clients/client-assertions.js';
import type { ClientDirectory } from '../clients/directory.js';
import type { Client } from '../clients/registry.js';
import { verifyClientSecret } from '../clients/secret.js';
import { InvalidClient, InvalidRequest } from '../errors/index.js';
import type { ClientAuthenticationFailure, ClientAuthenticationMethod, SecurityEvents } from '../events/types.js';
import { assertionSubject, CLIENT_ASSERTION_TYPE, ClientAssertionRefused } from '../oauth/client-assertion.js';
import type { FormParams } from '../oauth/form-params.js';

/** What the request presented to identify its client (RFC 6749 §2.3). */
export type PresentedClientCredentials =
  | {
      readonly method: 'client_secret_basic' | 'client_secret_post' | 'none';
      readonly clientId: string;
      readonly secret: string | undefined;
    }
  | {
      /** RFC 7523 §2.2; the client is the client_id sent, else the assertion's subject (undefined when it has none). */
      readonly method: 'private_key_jwt';
      readonly clientId: string | undefined;
      readonly assertion: string;
    };

/** Verifies what clients present: secrets against the directory's digests, assertions with the clients' keys. */
export interface ClientAuthentication {
  readonly clients: ClientDirectory;
  readonly assertions: Pick<ClientAssertions, 'verify'>;
  /** Told every refusal (client.authentication_failed). */
  readonly events: SecurityEvents;
}

const BASIC = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i;

/** RFC 6749 §2.3.1: id and secret are form-urlencoded before the Basic encoding (RFC 7617). */
function formDecode(value: string): string {
  // Generated ids and secrets have nothing to decode: no regex and no decoder per request.
  if (!value.includes('%') && !value.includes('+')) return value;
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    throw new InvalidRequest('malformed HTTP Basic credentials');
  }
}

function parseBasic(header: string): { clientId: string; secret: string } {
  const match = BASIC.exec(header);
  if (!match) throw new InvalidRequest('malformed HTTP Basic credentials');
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw new InvalidRequest('malformed HTTP Basic credentials');
  return { clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
}

/** RFC 7521 §4.2: `client_assertion` with its `client_assertion_type`, both in the body; undefined when neither is sent. */
function presentedAssertion(body: FormParams, query: FormParams): string | undefined {
  if (query.has('client_assertion')) throw new InvalidRequest('client_assertion must not be sent in the query string');
  const type = body.get('client_assertion_type');
  const assertion = body.get('client_assertion');
  if (type === undefined && assertion === undefined) return undefined;
  if (assertion === undefined) throw new InvalidRequest('client_assertion_type sent without client_assertion');
  if (type === undefined) throw new InvalidRequest('client_assertion sent without client_assertion_type');
  // This server takes one kind of assertion only (client_secret_jwt, SAML: RFC 7522, are not offered).
  if (type !== CLIENT_ASSERTION_TYPE) throw new InvalidRequest(`client_assertion_type must be ${CLIENT_ASSERTION_TYPE}`);
  return assertion;
}

/**
 * Reads the credentials a request presents, rejecting ambiguous or unsafe forms.
 * Returns undefined when the request names no client at all. HTTP Basic with an empty
 * password carries no secret: requests-oauthlib identifies a public client that way.
 */
export function presentedClientCredentials(
  authorization: string | undefined,
  body: FormParams,
  query: FormParams,
): PresentedClientCredentials | undefined {
  // RFC 6749 §2.3.1: "The parameters can only be transmitted in the request-body and
  // MUST NOT be included in the request URI."
  if (query.has('client_secret')) throw new InvalidRequest('client_secret must not be sent in the query string');
  const bodyId = body.get('client_id');
  const bodySecret = body.get('client_secret');
  const withBasic = authorization !== undefined && authorization !== '';
  const assertion = presentedAssertion(body, query);
  if (assertion !== undefined) {
    // RFC 6749 §2.3: "The client MUST NOT use more than one authentication method in each request."
    if (withBasic) throw new InvalidRequest('client authenticated with both HTTP Basic and client_assertion');
    if (bodySecret !== undefined) throw new InvalidRequest('client authenticated with both client_secret and client_assertion');
    return { method: 'private_key_jwt', clientId: bodyId ?? assertionSubject(assertion), assertion };
  }
  if (withBasic) {
    if (!/^Basic(?: |$)/i.test(authorization)) throw new InvalidRequest('unsupported Authorization scheme: use HTTP Basic');
    if (bodySecret !== undefined) throw new InvalidRequest('client authenticated with both HTTP Basic and client_secret');
    const basic = parseBasic(authorization);
    if (bodyId !== undefined && bodyId !== basic.clientId) throw new InvalidRequest('client_id does not match the HTTP Basic credentials');
    return basic.secret === ''
      ? { method: 'none', clientId: basic.clientId, secret: undefined }
      : { method: 'client_secret_basic', clientId: basic.clientId, secret: basic.secret };
  }
  if (bodyId === undefined) {
    if (bodySecret !== undefined) throw new InvalidRequest('client_secret sent without client_id');
    return undefined;
  }
  return bodySecret === undefined
    ? { method: 'none', clientId: bodyId, secret: undefined }
    : { method: 'client_secret_post', clientId: bodyId, secret: bodySecret };
}

/**
 * The one description of every failed authentication: unknown id, wrong secret, missing
 * secret, a secret from a public client, or an assertion refused for whatever reason all
 * read the same, so an answer never tells whether a client id exists, nor which check failed.
 */
export const CLIENT_AUTHENTICATION_FAILED = 'client authentication failed';

/** A refused authentication: how the client tried, which check failed (`failure`), and in words (`message`, for the debug log). */
export interface ClientAuthenticationRefusal {
  /** The client claimed, when it is one we know: an unknown id may be a secret typed into the wrong field. */
  readonly clientId: string | undefined;
  readonly method: ClientAuthenticationMethod;
  readonly failure: ClientAuthenticationFailure;
  readonly message: string;
}

export interface AuthenticationOptions {
  /** Told every refusal; never the secret or the assertion. */
  readonly onRefused?: (refusal: ClientAuthenticationRefusal) => void;
  /** Refuse public clients too (introspection: RFC 7662 §2.1). */
  readonly confidentialOnly?: boolean;
}

type Refuse = (failure: ClientAuthenticationFailure, clientId: string | undefined, message?: string, cause?: unknown) => InvalidClient;

/**
 * RFC 7521 §4.2.1: "If the client assertion is invalid for any reason, the error code
 * "invalid_client" MUST be used". A client registered with a secret, or public, cannot
 * authenticate this way (ClientAssertions refuses it).
 */
async function clientOfAssertion(
  presented: Extract<PresentedClientCredentials, { method: 'private_key_jwt' }>,
  authentication: ClientAuthentication,
  refuse: Refuse,
): Promise<Client> {
  if (presented.clientId === undefined) throw refuse('malformed', undefined, 'no client_id and no sub');
  const client = await authentication.clients.find(presented.clientId);
  if (!client) throw refuse('unknown_client', undefined, 'unknown client');
  try {
    await authentication.assertions.verify(presented.assertion, client);
    return client;
  } catch (err) {
    if (!(err instanceof ClientAssertionRefused)) throw err;
    throw refuse(err.failure, client.clientId, err.message, err);
  }
}

/**
 * A client with a secret may present it either way, whatever `token_endpoint_auth_method` it
 * registered: RFC 6749 §2.3.1 "The authorization server MUST support the HTTP Basic
 * authentication scheme for authenticating clients that were issued a client password", and
 * OAuth 2.1 §2.4.1 "the authorization server MUST support the client including the client
 * credentials in the request body". Unknown clients and public clients presenting a secret
 * cost the same secret comparison as known ones, so timing does not reveal which ids exist.
 */
async function clientOfSecret(
  presented: Exclude<PresentedClientCredentials, { method: 'private_key_jwt' }>,
  authentication: ClientAuthentication,
  refuse: Refuse,
): Promise<Client> {
  const client = await authentication.clients.find(presented.clientId);
  if (presented.secret !== undefined) {
    // A public or private_key_jwt client has no digest: the dummy comparison runs and fails.
    const matches = verifyClientSecret(presented.secret, client?.secretDigest);
    if (!client) throw refuse('unknown_client', undefined);
    if (!matches) throw refuse(client.secretDigest === undefined ? 'wrong_method' : 'wrong_secret', client.clientId);
    return client;
  }
  // No secret: only a public client may stop here (RFC 6749 §3.2.1: a confidential
  // client MUST authenticate, whether with a secret or with its keys).
  if (!client) throw refuse('unknown_client', undefined);
  if (client.authMethod !== 'none') throw refuse('credentials_missing', client.clientId);
  return client;
}

/**
 * Authenticates the client: a private_key_jwt client presents an assertion and nothing else,
 * a client with a secret its secret, a public client only its id. Every refusal is the same
 * invalid_client; `options.onRefused` is told which check failed.
 */
export async function authenticateClient(
  presented: PresentedClientCredentials | undefined,
  authentication: ClientAuthentication,
  options: AuthenticationOptions = {},
): Promise<Client> {
  if (!presented) throw new InvalidClient('client authentication is required');
  const refuse: Refuse = (failure, clientId, message = failure, cause) => {
    options.onRefused?.({ clientId, method: presented.method, failure, message });
    return new InvalidClient(CLIENT_AUTHENTICATION_FAILED, { cause });
  };
  const client =
    presented.method === 'private_key_jwt'
      ? await clientOfAssertion(presented, authentication, refuse)
      : await clientOfSecret(presented, authentication, refuse);
  // A public client is refused with the same words as an unknown one: nothing tells which ids exist.
  if (options.confidentialOnly && client.authMethod === 'none') throw refuse('public_client', client.clientId);
  return client;
}

/**
 * The client of a back-channel request (token, revocation, introspection): one way for all
 * three. A refusal is audited (client.authentication_failed, with the request's address) and,
 * in words, logged at debug.
 */
export function authenticatedClient(
  request: FastifyRequest,
  params: { readonly body: FormParams; readonly query: FormParams },
  authentication: ClientAuthentication,
  options: Pick<AuthenticationOptions, 'confidentialOnly'> = {},
): Promise<Client> {
  const presented = presentedClientCredentials(request.headers.authorization, params.body, params.query);
  return authenticateClient(presented, authentication, {
    ...options,
    onRefused: ({ clientId, method, failure, message }) => {
      request.log.debug({ clientId, method, reason: message }, 'client authentication refused: invalid_client');
      authentication.events.emit({
        event: 'client.authentication_failed',
        ...(clientId === undefined ? {} : { clientId }),
        method,
        reason: failure,
        address: request.ip,
      });
    },
  });
}
