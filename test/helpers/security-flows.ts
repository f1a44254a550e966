import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { ALICE, WEB_REDIRECT, WEB_SECRET } from './authorize-fixtures.js';
import { codeRequest, InjectBrowser, pkcePair, redirectParams, signInAndDecide } from './browser-flow.js';
import { basic, FORM_HEADERS, form } from './server.js';

/** POST /oauth2/token as `clientId` with HTTP Basic. */
export function tokenRequest(app: FastifyInstance, clientId: string, secret: string, fields: Record<string, string>) {
  return app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { ...FORM_HEADERS, authorization: basic(clientId, secret) },
    payload: form(fields),
  });
}

/** POST to the revocation or introspection endpoint as `clientId`. */
export function tokenStatusRequest(
  app: FastifyInstance,
  endpoint: 'revoke' | 'introspect',
  clientId: string,
  secret: string,
  token: string,
) {
  return app.inject({
    method: 'POST',
    url: `/oauth2/${endpoint}`,
    headers: { ...FORM_HEADERS, authorization: basic(clientId, secret) },
    payload: form({ token }),
  });
}

/** alice signs in and approves `web` (AUTHORIZE_CLIENTS); the code and its verifier. */
export async function approvedCode(app: FastifyInstance): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkcePair();
  const done = await signInAndDecide(new InjectBrowser(app), codeRequest('web', WEB_REDIRECT, challenge, 'read'), ALICE);
  const code = redirectParams(done.headers.location as string).code;
  // 302 without the consent page once the consent is remembered
  if ((done.statusCode !== 303 && done.statusCode !== 302) || !code) throw new Error(`no code: ${done.statusCode}`);
  return { code, verifier };
}

/** Redeems a code of `web`. */
export function redeem(app: FastifyInstance, grant: { code: string; verifier: string }): Promise<LightMyRequestResponse> {
  return tokenRequest(app, 'web', WEB_SECRET, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: WEB_REDIRECT,
    code_verifier: grant.verifier,
  });
}

/** A code of `web` redeemed: the token response. */
export async function webTokens(app: FastifyInstance): Promise<{ access_token: string; refresh_token: string }> {
  const res = await redeem(app, await approvedCode(app));
  if (res.statusCode !== 200) throw new Error(`redeem: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** A confidential client of the code flow with refresh tokens, redirecting to WEB_REDIRECT (created through the admin services). */
export function codeFlowClient(clientId: string, secretHash: string) {
  return {
    client_id: clientId,
    client_secret_hash: secretHash,
    redirect_uris: [WEB_REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'read',
  };
}

/** `credentials` (alice) sign in and approve `clientId` (a codeFlowClient), its code redeemed: the refresh token. */
export async function refreshTokenOf(app: FastifyInstance, clientId: string, secret: string, credentials = ALICE): Promise<string> {
  const { verifier, challenge } = pkcePair();
  const done = await signInAndDecide(new InjectBrowser(app), codeRequest(clientId, WEB_REDIRECT, challenge), credentials);
  const code = redirectParams(done.headers.location as string).code as string;
  const res = await tokenRequest(app, clientId, secret, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: WEB_REDIRECT,
    code_verifier: verifier,
  });
  if (res.statusCode !== 200) throw new Error(`redeem: ${res.statusCode} ${res.body}`);
  return res.json().refresh_token;
}
