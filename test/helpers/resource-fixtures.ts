import { decodeJwt, type JWTPayload } from 'jose';
import { hashClientSecret } from '../../src/clients/secret.js';
import { AUTHORIZE_CLIENTS, WEB_SECRET } from './authorize-fixtures.js';

/** Protected resources (RESOURCES_FILE entries) of the resource indicator tests. */
export const MCP = 'https://mcp.example.com/mcp';
export const API = 'https://api.example.com/';
export const FILES = 'https://files.example.com/store?tenant=a';
export const UNREGISTERED = 'https://other.example.com/';

export const RESOURCES = [
  { resource: MCP, name: 'Example <MCP>', scope: 'tools files:read', access_token_ttl: 900 },
  { resource: API, name: 'Example API', scope: 'read write' },
  { resource: FILES, scope: 'files:read files:write', access_token_ttl: 600 },
];

export const MCP_REDIRECT = 'http://127.0.0.1:33418/callback';

/**
 * The authorization endpoint's clients, plus: `mcp`, a public client registered without
 * scope (as MCP clients and Client ID Metadata Documents are); `robot`, a confidential
 * client_credentials client limited to `read tools`; `bare`, one registered without scope;
 * `app`, a password client with refresh tokens limited to `read write tools`.
 */
export const RESOURCE_CLIENTS = [
  ...AUTHORIZE_CLIENTS,
  {
    client_id: 'mcp',
    client_name: 'MCP Inspector',
    redirect_uris: [MCP_REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'none',
  },
  { client_id: 'robot', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['client_credentials'], scope: 'read tools' },
  { client_id: 'bare', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['client_credentials'] },
  {
    client_id: 'app',
    client_secret_hash: hashClientSecret(WEB_SECRET),
    grant_types: ['password', 'refresh_token'],
    scope: 'read write tools',
  },
];

/** The claims of an access token (the signature is checked by the tests that are about it). */
export function claimsOf(accessToken: string): JWTPayload {
  return decodeJwt(accessToken);
}
