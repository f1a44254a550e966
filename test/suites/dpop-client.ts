import * as oauth from 'oauth4webapi';
import { createVerifier, TokenVerificationError } from '@oauth2-token-service/verifier';
import type { Test } from 'tap';
import { ALICE, WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { InjectBrowser, signInAndDecide } from '../helpers/browser-flow.js';
import { ISSUER } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';
import { NATIVE_REDIRECT, setup } from './dpop.js';

const API = 'https://api.example.com/things';
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * oauth4webapi (a client we did not write) against the server through inject(): its
 * `customFetch` hook turns each of its requests into an injected one, so no port is
 * needed for the flows; the verifier reads the JWKS over real HTTP.
 */
async function clientAgainst(t: Test, open: OpenStore, env: Record<string, string>) {
  const server = await setup(t, open, env);
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
  const as = await oauth.processDiscoveryResponse(
    new URL(ISSUER),
    await oauth.discoveryRequest(new URL(ISSUER), { algorithm: 'oauth2', [oauth.customFetch]: injected }),
  );
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  const verifier = createVerifier({
    issuer: ISSUER,
    audience: ISSUER,
    jwksUri: `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}/.well-known/jwks.json`,
    dpop: {},
  });
  /** What oauth4webapi sends to a resource server: the Authorization and DPoP headers of a GET to API. */
  const resourceRequest = async (accessToken: string, DPoP: oauth.DPoPHandle) => {
    let sent = new Headers();
    await oauth.protectedResourceRequest(accessToken, 'GET', new URL(API), undefined, undefined, {
      DPoP,
      [oauth.customFetch]: async (_url, init) => {
        sent = new Headers(init.headers);
        return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    return { authorization: sent.get('authorization') ?? '', proof: sent.get('dpop') ?? undefined };
  };
  /** Our verifier on what oauth4webapi sent: the claims, or the refusal's code. */
  const verify = async (accessToken: string, proof: string | undefined) =>
    verifier.verify(accessToken, { dpop: { proof, method: 'GET', url: API } }).then(
      (claims) => claims,
      (err: unknown) => (err instanceof TokenVerificationError ? err.code : Promise.reject(err)),
    );
  return { server, as, injected, resourceRequest, verify };
}

/** Retries once when the server asks for a DPoP nonce (RFC 9449 §8), as oauth4webapi's documentation shows. */
async function withNonceRetry<T>(attempt: () => Promise<T>, onRetry: () => void): Promise<T> {
  try {
    return await attempt();
  } catch (err) {
    if (!oauth.isDPoPNonceError(err)) throw err;
    onRetry();
    return attempt();
  }
}

export function dpopClientSuite(t: Test, name: string, open: OpenStore): void {
  for (const nonces of [false, true]) {
    const env = nonces ? { DPOP_REQUIRE_NONCE: 'true', SESSION_SECRET: 'dpop-client-session-secret-0123456789ab' } : {};
    const label = nonces ? 'with DPOP_REQUIRE_NONCE (the nonce round trip)' : 'without nonces';

    t.test(`oauth4webapi with DPoP, ${label} (${name})`, async (t) => {
      const { server, as, injected, resourceRequest, verify } = await clientAgainst(t, open, env);

      t.test('client_credentials: a DPoP token our verifier accepts with its proof, and only so', async (t) => {
        const client: oauth.Client = { client_id: 'service' };
        const keys = await oauth.generateKeyPair('ES256');
        const DPoP = oauth.DPoP(client, keys);
        let retries = 0;
        const tokens = await withNonceRetry(
          async () =>
            oauth.processClientCredentialsResponse(
              as,
              client,
              await oauth.clientCredentialsGrantRequest(
                as,
                client,
                oauth.ClientSecretBasic(WEB_SECRET),
                { scope: 'read' },
                {
                  DPoP,
                  [oauth.customFetch]: injected,
                },
              ),
            ),
          () => (retries += 1),
        );
        t.equal(retries, nonces ? 1 : 0, nonces ? 'one use_dpop_nonce, then the token' : 'no nonce asked');
        t.equal(tokens.token_type, 'dpop');
        const sent = await resourceRequest(tokens.access_token, DPoP);
        t.equal(sent.authorization, `DPoP ${tokens.access_token}`);
        t.match(await verify(tokens.access_token, sent.proof), { client_id: 'service', cnf: { jkt: await DPoP.calculateThumbprint() } });
        t.equal(await verify(tokens.access_token, sent.proof), 'invalid_dpop_proof', 'the same proof again: a replay');
        t.equal(await verify(tokens.access_token, undefined), 'invalid_dpop_proof', 'without a proof');
        const thief = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
        t.equal(
          await verify(tokens.access_token, (await resourceRequest(tokens.access_token, thief)).proof),
          'invalid_token',
          'a proof by another key',
        );
      });

      t.test('authorization code with PKCE and dpop_jkt, then refresh with the same key; another key cannot refresh', async (t) => {
        const client: oauth.Client = { client_id: 'native' };
        const keys = await oauth.generateKeyPair('ES256');
        const DPoP = oauth.DPoP(client, keys);
        const verifier = oauth.generateRandomCodeVerifier();
        const state = oauth.generateRandomState();
        const request = {
          response_type: 'code',
          client_id: 'native',
          redirect_uri: NATIVE_REDIRECT,
          scope: 'read',
          state,
          code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          dpop_jkt: await DPoP.calculateThumbprint(),
        };
        const callback = await signInAndDecide(new InjectBrowser(server.app), request, ALICE);
        const params = oauth.validateAuthResponse(as, client, new URL(callback.headers.location as string), state);
        const options = { DPoP, [oauth.customFetch]: injected };
        const tokens = await withNonceRetry(
          async () =>
            oauth.processAuthorizationCodeResponse(
              as,
              client,
              await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, NATIVE_REDIRECT, verifier, options),
            ),
          () => undefined,
        );
        t.equal(tokens.token_type, 'dpop');
        t.ok(tokens.refresh_token);
        const refreshed = await oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token as string, options),
        );
        t.equal(refreshed.token_type, 'dpop');
        t.not(refreshed.refresh_token, tokens.refresh_token, 'rotated');
        t.match(await verify(refreshed.access_token, (await resourceRequest(refreshed.access_token, DPoP)).proof), {
          sub: 'user-alice',
          cnf: { jkt: await DPoP.calculateThumbprint() },
        });

        const thief = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
        const stolen = withNonceRetry(
          async () =>
            oauth.processRefreshTokenResponse(
              as,
              client,
              await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token as string, {
                DPoP: thief,
                [oauth.customFetch]: injected,
              }),
            ),
          () => undefined,
        );
        t.match(
          await stolen.then(
            () => undefined,
            (err: unknown) => err,
          ),
          { error: 'invalid_grant', error_description: 'the refresh token is bound to a DPoP key: send a DPoP proof made with that key' },
        );
      });
    });
  }
}
