import * as oauth from 'oauth4webapi';
import t from 'tap';
import { ALICE, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { InjectBrowser, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { ALICE_CLAIMS, ES256_REDIRECT, oidcServer } from '../helpers/oidc-fixtures.js';
import { ISSUER } from '../helpers/server.js';

/**
 * oauth4webapi (a client we did not write) for a client registered with
 * `id_token_signed_response_alg: ES256`: OpenID discovery, the code response processed with
 * `requireIdToken` (it validates the ID token's signature by our JWKS, its alg, iss, aud,
 * exp, iat, nonce, at_hash), and userinfo. Its requests go through inject().
 */

const NULL_BODY_STATUSES = new Set([204, 205, 304]);

t.test('oauth4webapi: OpenID discovery, a code response with requireIdToken (ES256), userinfo', async (t) => {
  const server = await oidcServer(t);
  const injected = async (
    input: string,
    init?: { method?: string; headers?: Record<string, string>; body?: unknown },
  ): Promise<Response> => {
    const url = new URL(input);
    const res = await server.app.inject({
      method: (init?.method ?? 'GET') as 'GET',
      url: `${url.pathname}${url.search}`,
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      ...(init?.body !== undefined && init.body !== null ? { payload: String(init.body) } : {}),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, String(value));
    return new Response(NULL_BODY_STATUSES.has(res.statusCode) ? null : res.rawPayload, { status: res.statusCode, headers });
  };
  const options = { [oauth.customFetch]: injected };
  // The default algorithm: OpenID Connect Discovery.
  const as = await oauth.processDiscoveryResponse(new URL(ISSUER), await oauth.discoveryRequest(new URL(ISSUER), options));
  const client: oauth.Client = { client_id: 'es-client', id_token_signed_response_alg: 'ES256' };
  const auth = oauth.ClientSecretBasic(WEB_SECRET);

  const verifier = oauth.generateRandomCodeVerifier();
  const nonce = oauth.generateRandomNonce();
  const browser = new InjectBrowser(server.app);
  const approved = await signInAndDecide(
    browser,
    {
      response_type: 'code',
      client_id: 'es-client',
      redirect_uri: ES256_REDIRECT,
      scope: 'openid email',
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    },
    ALICE,
  );
  t.equal(approved.statusCode, 303);
  const callback = new URL(approved.headers.location as string);
  t.ok(redirectParams(callback.href).code);
  const params = oauth.validateAuthResponse(as, client, callback);
  const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, ES256_REDIRECT, verifier, options);
  const result = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: nonce, requireIdToken: true });
  const claims = oauth.getValidatedIdTokenClaims(result);
  t.equal(claims?.sub, 'user-alice');
  t.equal(claims?.aud, 'es-client');

  const userinfo = await oauth.processUserInfoResponse(
    as,
    client,
    'user-alice',
    await oauth.userInfoRequest(as, client, result.access_token, options),
  );
  t.same(userinfo, { email: ALICE_CLAIMS.email, email_verified: true, sub: 'user-alice' });
});
