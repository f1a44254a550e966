import type { ClientDirectory } from '../clients/directory.js';
import type { Client, ClientAuthMethod } from '../clients/registry.js';
import { verifyClientSecret } from '../clients/secret.js';
import { InvalidClient, InvalidRequest } from '../errors/index.js';
import type { FormParams } from '../oauth/form-params.js';

/** What the request presented to identify its client (RFC 6749 §2.3). */
export interface PresentedClientCredentials {
  readonly method: ClientAuthMethod;
  readonly clientId: string;
  readonly secret: string | undefined;
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
  if (authorization !== undefined && authorization !== '') {
    if (!/^Basic(?: |$)/i.test(authorization)) throw new InvalidRequest('unsupported Authorization scheme: use HTTP Basic');
    // RFC 6749 §2.3: "The client MUST NOT use more than one authentication method in each request."
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
 * secret, or a secret from a public client all read the same, so an answer never tells
 * whether a client id exists.
 */
export const CLIENT_AUTHENTICATION_FAILED = 'client authentication failed';

/**
 * Authenticates the client. A client with a secret may present it either way, whatever
 * `token_endpoint_auth_method` it registered: RFC 6749 §2.3.1 "The authorization server
 * MUST support the HTTP Basic authentication scheme for authenticating clients that were
 * issued a client password", and OAuth 2.1 §2.4.1 "the authorization server MUST support
 * the client including the client credentials in the request body". A public client
 * presents only its id. Unknown clients and public clients presenting a
 * secret cost the same secret comparison as known ones, so timing does not reveal which
 * ids exist.
 */
export async function authenticateClient(presented: PresentedClientCredentials | undefined, clients: ClientDirectory): Promise<Client> {
  if (!presented) throw new InvalidClient('client authentication is required');
  const client = await clients.find(presented.clientId);
  if (presented.secret !== undefined) {
    // A public client has no digest: the dummy comparison runs and fails.
    if (!verifyClientSecret(presented.secret, client?.secretDigest) || !client) throw new InvalidClient(CLIENT_AUTHENTICATION_FAILED);
    return client;
  }
  // No secret: only a public client may stop here (RFC 6749 §3.2.1: a confidential
  // client MUST authenticate).
  if (!client || client.secretDigest !== undefined) throw new InvalidClient(CLIENT_AUTHENTICATION_FAILED);
  return client;
}
