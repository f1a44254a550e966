import { Writable } from 'node:stream';
import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import type { ClientAuthenticationFailure, ClientAuthenticationMethod } from '../../src/events/types.js';
import { AUTHORIZE_CLIENTS, testUsers, WEB_SECRET } from './authorize-fixtures.js';
import { assertionParams, clientAssertion, type ClientKey, clientKey, jwksOf } from './client-keys.js';
import { buildTestServer, FORM_HEADERS, form, ISSUER } from './server.js';
import type { OpenStore } from './stores.js';

/**
 * The server of the private_key_jwt tests: clients with keys (a service, a web app with the
 * code flow, a resource server that introspects), one with a secret, and the public ones of
 * the authorization endpoint; its log at debug in memory, audit lines included.
 */

export const KEYED_REDIRECT = 'https://keyed.example.com/cb';

/** Every refused client authentication, whatever failed. */
export const FAILED = {
  status: 401,
  error: 'invalid_client',
  description: 'client authentication failed',
  headers: { 'www-authenticate': `Basic realm="${ISSUER}", charset="UTF-8"` },
};

/** Where the test requests come from (the audit lines' `address`). */
export const CLIENT_ADDRESS = '198.51.100.23';

/** What a refused authentication is audited as (client.authentication_failed). */
export interface Refusal {
  readonly method: ClientAuthenticationMethod;
  readonly reason: ClientAuthenticationFailure;
  /** The client named in the event; none for an unknown one. */
  readonly clientId?: string;
  /** What the debug line says. */
  readonly says?: string;
}

/** The audit event of `refusal`, from CLIENT_ADDRESS. */
export const refusalEvent = (refusal: Refusal) => ({
  event: 'client.authentication_failed',
  ...(refusal.clientId === undefined ? {} : { clientId: refusal.clientId }),
  method: refusal.method,
  reason: refusal.reason,
  address: CLIENT_ADDRESS,
});

export interface KeyedClientKeys {
  readonly service: ClientKey;
  readonly web: ClientKey;
  readonly rs: ClientKey;
  /** Named like the service's key: only the signature tells them apart. */
  readonly stranger: ClientKey;
}

function clients(keys: KeyedClientKeys) {
  const keyed = { token_endpoint_auth_method: 'private_key_jwt' };
  return [
    ...AUTHORIZE_CLIENTS,
    { ...keyed, client_id: 'keyed-service', jwks: jwksOf(keys.service), grant_types: ['client_credentials'], scope: 'read write' },
    {
      ...keyed,
      client_id: 'keyed-web',
      jwks: jwksOf(keys.web),
      redirect_uris: [KEYED_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'read',
    },
    { ...keyed, client_id: 'keyed-rs', jwks: jwksOf(keys.rs), grant_types: ['client_credentials'], introspect_all_tokens: true },
    { client_id: 'secret-service', client_secret_hash: hashClientSecret(WEB_SECRET), grant_types: ['client_credentials'], scope: 'read' },
  ];
}

export type LogLine = Record<string, unknown>;

export async function keyedClientsServer(t: Test, open: OpenStore, options: { metrics?: boolean; env?: Record<string, string> } = {}) {
  const [service, web, rs, stranger] = await Promise.all([
    clientKey('ES256', 'service'),
    clientKey('EdDSA', 'web'),
    clientKey('PS256', 'rs'),
    clientKey('ES256', 'service'),
  ]);
  const keys = { service, web, rs, stranger };
  const lines: string[] = [];
  const logs = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const server = await buildTestServer(t, {
    clients: clients(keys),
    users: testUsers(),
    store: await open(t),
    logger: { level: 'debug', stream: logs },
    ...(options.metrics ? { metrics: true } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  const now = () => Math.floor(server.clock.now / 1000);
  const post = (path: string, params: Record<string, string>, authorization?: string) =>
    server.app.inject({
      method: 'POST',
      url: path,
      headers: { ...FORM_HEADERS, ...(authorization === undefined ? {} : { authorization }) },
      payload: form(params),
      remoteAddress: CLIENT_ADDRESS,
    });
  /** A fresh assertion of `clientId` signed by `key`. */
  const sign = (key: ClientKey, clientId: string, options: Omit<Parameters<typeof clientAssertion>[2], 'now'> = {}) =>
    clientAssertion(key, clientId, { now: now(), ...options });
  const token = async (key: ClientKey, clientId: string, params: Record<string, string> = { grant_type: 'client_credentials' }) =>
    post('/oauth2/token', { ...params, ...assertionParams(await sign(key, clientId)) });
  /** The log lines written since line `from`, parsed. */
  const logged = (from = 0): LogLine[] => lines.slice(from).map((line) => JSON.parse(line) as LogLine);
  /** The audit events since line `from`, without pino's fields. */
  const audited = (from = 0): LogLine[] =>
    logged(from)
      .filter((line) => line.audit === true)
      .map(({ level: _level, time: _time, pid: _pid, hostname: _hostname, audit: _audit, msg: _msg, ...event }) => event);
  return { ...server, keys, lines, now, post, sign, token, logged, audited };
}
