import type { Test } from 'tap';
import { ALICE, AUTHORIZE_CLIENTS, testUsers, WEB_REDIRECT, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { InjectBrowser, pkcePair, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { expectOAuthError, type InjectedResponse } from '../helpers/oauth-error.js';
import { basic, buildTestServer, FORM_HEADERS, form } from '../helpers/server.js';
import { memoryStore, type OpenStore } from '../helpers/stores.js';

/** A server on a fresh store (memory by default); `newCode` signs alice in and approves. */
export async function setup(t: Test, open: OpenStore = memoryStore, env: Record<string, string> = {}) {
  const server = await buildTestServer(t, { clients: AUTHORIZE_CLIENTS, users: testUsers(), env, store: await open(t) });
  const { verifier, challenge } = pkcePair();
  const request = {
    response_type: 'code',
    client_id: 'web',
    redirect_uri: WEB_REDIRECT,
    scope: 'read write',
    state: 's',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  const newCode = async (params: Record<string, string> = request) => {
    const res = await signInAndDecide(new InjectBrowser(server.app), params, ALICE);
    return redirectParams(res.headers.location as string).code as string;
  };
  /** `authorization: null` sends no Authorization header (a public client). */
  const redeem = (params: Record<string, string>, authorization: string | null = basic('web', WEB_SECRET)) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM_HEADERS, ...(authorization ? { authorization } : {}) },
      payload: form({ grant_type: 'authorization_code', ...params }),
    });
  return { ...server, verifier, request, newCode, redeem };
}

export const expectInvalidGrant = (t: Test, res: InjectedResponse, description: string) =>
  expectOAuthError(t, res, { status: 400, error: 'invalid_grant', description });

/** Single use under concurrency, the same on every store. */
export function parallelRedemptionSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`20 parallel redemptions of one code: exactly one succeeds (${name})`, async (t) => {
    const { verifier, newCode, redeem } = await setup(t, open);
    const code = await newCode();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => redeem({ code, redirect_uri: WEB_REDIRECT, code_verifier: verifier })),
    );
    t.equal(results.filter((r) => r.statusCode === 200).length, 1, 'exactly one 200');
    t.same(new Set(results.filter((r) => r.statusCode !== 200).map((r) => r.json().error)), new Set(['invalid_grant']));
  });
}
