import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';
import { ClientRegistry } from '../../src/clients/registry.js';
import { AUTHORIZE_CLIENTS, testUsers } from './authorize-fixtures.js';
import { RESOURCES } from './resource-fixtures.js';
import { buildTestServer, type TestServer, type TestServerOptions } from './server.js';
import { memoryStore, type TestStore } from './stores.js';

/** Client metadata of an MCP client registering itself: public, loopback redirect, PKCE (RFC 8252). */
export const NATIVE_CLIENT = {
  client_name: 'Example MCP client',
  redirect_uris: ['http://127.0.0.1/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};

/** A web application with a secret (client_secret_basic, RFC 7591 §2's default). */
export const WEB_CLIENT = {
  client_name: 'Example web app',
  redirect_uris: ['https://app.example.org/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
};

/** A client information response (RFC 7591 §3.2.1) as the tests read it. */
export interface ClientInformation {
  readonly client_id: string;
  readonly client_secret?: string;
  readonly registration_access_token: string;
  readonly registration_client_uri: string;
  readonly client_id_issued_at: number;
  readonly [field: string]: unknown;
}

export const JSON_HEADERS = { 'content-type': 'application/json' } as const;

export interface RegistrationServer extends TestServer {
  /** CLIENTS_FILE as the server reads it; tests replace it as a SIGHUP would. */
  readonly fileClients: ClientRegistry;
  /** POST /oauth2/register from `ip`; `body` is sent as JSON (a string as is). */
  register(body: unknown, headers?: Record<string, string>, ip?: string): Promise<LightMyRequestResponse>;
  /** RFC 7592 at the client configuration endpoint, with the registration access token. */
  manage(method: 'GET' | 'PUT' | 'DELETE', clientId: string, token: string | undefined, body?: unknown): Promise<LightMyRequestResponse>;
  /** Registers `body` and returns the client information response (fails the test unless 201). */
  registered(t: Test, body?: unknown): Promise<ClientInformation>;
}

/** A server with open registration (unless `env` says otherwise), the authorize clients in its file, alice, and the resources. */
export async function registrationServer(
  t: Test,
  store?: TestStore,
  env: Record<string, string> = {},
  options: Omit<TestServerOptions, 'env' | 'store'> = {},
): Promise<RegistrationServer> {
  const fileClients = ClientRegistry.fromMetadata(AUTHORIZE_CLIENTS);
  const server = await buildTestServer(t, {
    clientRegistry: fileClients,
    users: testUsers(),
    resources: RESOURCES,
    store: store ?? (await memoryStore(t)),
    env: { DYNAMIC_CLIENT_REGISTRATION: 'open', ...env },
    ...options,
  });
  return withRegistration(server.app, server, fileClients);
}

export function withRegistration(app: FastifyInstance, server: TestServer, fileClients: ClientRegistry): RegistrationServer {
  const register = (body: unknown, headers: Record<string, string> = {}, ip = '198.51.100.20') =>
    app.inject({
      method: 'POST',
      url: '/oauth2/register',
      headers: { ...JSON_HEADERS, ...headers },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
      remoteAddress: ip,
    });
  const manage = (method: 'GET' | 'PUT' | 'DELETE', clientId: string, token: string | undefined, body?: unknown) =>
    app.inject({
      method,
      url: `/oauth2/register/${clientId}`,
      headers: { ...(body === undefined ? {} : JSON_HEADERS), ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const registered = async (t: Test, body: unknown = NATIVE_CLIENT) => {
    const res = await register(body);
    t.equal(res.statusCode, 201, 'registered');
    return res.json() as ClientInformation;
  };
  return { ...server, app, fileClients, register, manage, registered };
}
