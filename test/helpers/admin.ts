import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { basic, FORM_HEADERS, ISSUER, TEST_CLIENTS } from './server.js';

/** The admin API of the test server: its URL is the resource its tokens are for. */
export const ADMIN_API = `${ISSUER}/admin/v1`;

export const ADMIN_SECRET = 'admin-secret-0123456789abcdefghijklmnopqrstuvwxyz';

/** CLIENTS_FILE clients whose scope lists the admin scopes (client_credentials), beside the usual test clients. */
export const ADMIN_CLIENTS = [
  ...TEST_CLIENTS,
  {
    client_id: 'operator',
    client_secret_hash: hashClientSecret(ADMIN_SECRET),
    grant_types: ['client_credentials'],
    scope: 'admin:read admin:write',
  },
  {
    client_id: 'auditor',
    client_secret_hash: hashClientSecret(ADMIN_SECRET),
    grant_types: ['client_credentials'],
    scope: 'admin:read read',
  },
];

/** A client_credentials token of `clientId` (an ADMIN_CLIENTS client) for `resource` (the admin API by default). */
export async function adminToken(
  app: FastifyInstance,
  clientId: string,
  extra: Record<string, string> = {},
  resource = ADMIN_API,
): Promise<string> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', ...extra });
  if (resource !== '') body.append('resource', resource);
  const res = await app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { ...FORM_HEADERS, authorization: basic(clientId, ADMIN_SECRET) },
    payload: body.toString(),
  });
  if (res.statusCode !== 200) throw new Error(`no token for ${clientId}: ${res.body}`);
  return (res.json() as { access_token: string }).access_token;
}

export interface ExpectedProblem {
  readonly status: number;
  /** The problem's name: `urn:oauth2-token-service:problem:<name>`. */
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  readonly errors?: readonly { field: string; problem: string }[];
  readonly scope?: string;
  /** Further headers that must have exactly these values. */
  readonly headers?: Record<string, string | undefined>;
}

/** An RFC 9457 answer: the exact status, headers, and document. */
export function expectProblem(t: Test, res: LightMyRequestResponse, expected: ExpectedProblem): void {
  t.equal(res.statusCode, expected.status, `status ${expected.status}: ${expected.detail}`);
  const headers = { 'content-type': 'application/problem+json', 'cache-control': 'no-store', ...expected.headers };
  t.same(Object.fromEntries(Object.keys(headers).map((name) => [name, res.headers[name]])), headers, 'problem headers');
  t.same(res.json(), {
    type: `urn:oauth2-token-service:problem:${expected.type}`,
    title: expected.title,
    status: expected.status,
    detail: expected.detail,
    ...(expected.errors ? { errors: expected.errors } : {}),
    ...(expected.scope ? { scope: expected.scope } : {}),
  });
}

export function bearer(token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` };
}
