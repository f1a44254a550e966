import type { Test } from 'tap';
import { dpopKey, dpopProof } from '../helpers/dpop.js';
import { codeFlow, oidcServer } from '../helpers/oidc-fixtures.js';
import { ISSUER } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * Userinfo (OpenID Connect Core §5.3) for a DPoP-bound token (RFC 9449 §7.1: the DPoP scheme
 * and a proof by the token's key, bound to it with `ath`; each proof once, which the store
 * records), and CORS as at the token endpoint. On a store (run on memory and on Redis).
 */

const USERINFO = `${ISSUER}/oauth2/userinfo`;

export function oidcUserinfoSuite(t: Test, openStore: OpenStore): void {
  t.test('a DPoP-bound token: the DPoP scheme and a fresh proof by its key, with ath; anything else refused', async (t) => {
    const server = await oidcServer(t, { store: await openStore(t) });
    const key = await dpopKey();
    const now = () => Math.floor(server.clock.now / 1000);
    const proofForToken = await dpopProof(key, { htu: `${ISSUER}/oauth2/token`, iat: now() });
    const { body } = await codeFlow(server, { scope: 'openid email' }, { tokenExtra: {}, dpopProof: proofForToken });
    t.equal(body.token_type, 'DPoP', body.error_description as string);
    const token = body.access_token as string;
    const call = (headers: Record<string, string>) => server.app.inject({ method: 'GET', url: '/oauth2/userinfo', headers });

    const proof = await dpopProof(key, { htm: 'GET', htu: USERINFO, iat: now(), accessToken: token });
    const ok = await call({ authorization: `DPoP ${token}`, dpop: proof });
    t.equal(ok.statusCode, 200, ok.body);
    t.same(ok.json(), { email: 'alice@example.com', email_verified: true, sub: 'user-alice' });

    const replay = await call({ authorization: `DPoP ${token}`, dpop: proof });
    t.equal(replay.statusCode, 401, 'a proof is used once');
    t.match(
      replay.headers['www-authenticate'],
      /^DPoP realm="[^"]+", error="invalid_dpop_proof", error_description="the DPoP proof was already used"/,
    );

    const asBearer = await call({ authorization: `Bearer ${token}` });
    t.equal(asBearer.statusCode, 401);
    t.match(
      asBearer.headers['www-authenticate'],
      /^Bearer realm="[^"]+", error="invalid_token", error_description="[^"]*DPoP[^"]*", DPoP realm="[^"]+", algs="/,
    );

    const other = await dpopKey();
    const wrongKey = await dpopProof(other, { htm: 'GET', htu: USERINFO, iat: now(), accessToken: token });
    const noAth = await dpopProof(key, { htm: 'GET', htu: USERINFO, iat: now() });
    for (const [dpop, description] of [
      [wrongKey, 'the DPoP proof is made with another key than the token is bound to'],
      [noAth, 'the DPoP proof ath does not match the access token'],
    ] as const) {
      const refused = await call({ authorization: `DPoP ${token}`, dpop });
      t.equal(refused.statusCode, 401, description);
      t.match(
        refused.headers['www-authenticate'],
        `DPoP realm="${ISSUER}", error="invalid_dpop_proof", error_description="${description}"`,
      );
      t.same(refused.json(), { error: 'invalid_dpop_proof', error_description: description });
    }
  });

  t.test('CORS: the token’s client’s allowed origins may read the answer; a preflight for GET is answered', async (t) => {
    const server = await oidcServer(t, { store: await openStore(t) });
    const { body } = await codeFlow(server, { scope: 'openid' });
    const allowed = 'https://app.example.com';
    const res = await server.app.inject({
      method: 'GET',
      url: '/oauth2/userinfo',
      headers: { authorization: `Bearer ${body.access_token as string}`, origin: allowed },
    });
    t.equal(res.statusCode, 200);
    t.equal(res.headers['access-control-allow-origin'], allowed, 'web’s redirect URI origin');
    const elsewhere = await server.app.inject({
      method: 'GET',
      url: '/oauth2/userinfo',
      headers: { authorization: `Bearer ${body.access_token as string}`, origin: 'https://evil.example' },
    });
    t.equal(elsewhere.headers['access-control-allow-origin'], undefined);
    const preflight = await server.app.inject({
      method: 'OPTIONS',
      url: '/oauth2/userinfo',
      headers: { origin: 'https://spa.example.com', 'access-control-request-method': 'GET' },
    });
    t.equal(preflight.statusCode, 204);
    t.equal(preflight.headers['access-control-allow-methods'], 'GET, POST');
    t.equal(preflight.headers.allow, 'OPTIONS, GET, POST');
  });
}
