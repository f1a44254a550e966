import { createHmac, generateKeyPairSync } from 'node:crypto';
import Fastify from 'fastify';
// Imported through the package's public exports, as resource servers do.
import { createVerifier, TokenVerificationError } from '@oauth2-token-service/verifier';
import { requireScope } from '@oauth2-token-service/verifier/fastify';
import type { Test } from 'tap';
import t from 'tap';
import { signCompactJws } from '../../src/tokens/jws.js';
import { basic, buildTestServer, FORM_HEADERS, form, ISSUER, SECRETS } from '../helpers/server.js';

t.test('createVerifier', async (t) => {
  const { app, keystore, clock } = await buildTestServer(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const jwksUri = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/.well-known/jwks.json`;
  const verifier = createVerifier({ issuer: ISSUER, audience: ISSUER, jwksUri, clock: () => clock.now, jwksCooldownSeconds: 0 });
  const now = Math.floor(clock.now / 1000);
  const key = keystore.signingKeyAt(now);
  if (!key) throw new Error('no signing key');

  const issued = async (scope = 'read write') =>
    (
      await app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { ...FORM_HEADERS, authorization: basic('service', SECRETS.service) },
        payload: form({ grant_type: 'client_credentials', scope }),
      })
    ).json().access_token as string;
  const claims = (extra: Record<string, unknown> = {}) => ({
    iss: ISSUER,
    sub: 'alice',
    aud: ISSUER,
    client_id: 'service',
    scope: 'read',
    iat: now,
    exp: now + 600,
    jti: 'j-1',
    ...extra,
  });
  const signed = (extra: Record<string, unknown> = {}, header: Record<string, unknown> = {}) =>
    signCompactJws({ alg: key.alg, kid: key.kid, typ: 'at+jwt', ...header }, claims(extra), key.alg, key.privateKey);
  const refused = async (t: Test, token: string, description: string) => {
    const err = await verifier.verify(token).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.type(err, TokenVerificationError);
    t.match(err, { code: 'invalid_token', status: 401, description });
    t.equal(
      (err as TokenVerificationError).wwwAuthenticate,
      `Bearer realm="${ISSUER}", error="invalid_token", error_description="${description}"`,
    );
  };

  t.test('accepts our tokens and returns typed claims', async (t) => {
    const result = await verifier.verify(await issued(), { requiredScopes: ['read'] });
    t.match(result, { iss: ISSUER, sub: 'service', aud: ISSUER, client_id: 'service', scope: 'read write' });
  });

  t.test('refuses typ JWT, alg none, and HS256 keyed with the public key', async (t) => {
    await refused(t, signed({}, { typ: 'JWT' }), "the access token's typ claim is not valid here");
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}.`;
    await refused(t, unsigned, 'the access token uses an algorithm that is not accepted');
    const input = `${Buffer.from(JSON.stringify({ alg: 'HS256', kid: key.kid, typ: 'at+jwt' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}`;
    const hmac = createHmac('sha256', JSON.stringify(key.publicJwk)).update(input).digest('base64url');
    await refused(t, `${input}.${hmac}`, 'the access token uses an algorithm that is not accepted');
  });

  t.test('refuses a wrong iss or aud, an expired or not yet valid token', async (t) => {
    await refused(t, signed({ iss: 'https://evil.example.com' }), "the access token's iss claim is not valid here");
    await refused(t, signed({ aud: 'https://other-api.example.com' }), "the access token's aud claim is not valid here");
    await refused(t, signed({ iat: now - 4000, exp: now - 31 }), 'the access token expired');
    await refused(t, signed({ nbf: now + 120 }), "the access token's nbf claim is not valid here");
    await refused(t, signed({ iat: now + 120 }), 'the access token was issued in the future');
    t.match(await verifier.verify(signed({ exp: now - 10 })), { sub: 'alice' }, 'within the clock tolerance');
  });

  t.test('refuses an unknown kid (after a refetch) and a bad signature', async (t) => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await refused(
      t,
      signCompactJws({ alg: 'ES256', kid: 'unknown-kid', typ: 'at+jwt' }, claims(), 'ES256', privateKey),
      'the access token is signed with an unknown key',
    );
    await refused(
      t,
      signCompactJws({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' }, claims(), 'ES256', privateKey),
      'the access token signature is invalid',
    );
    await refused(t, 'not.a.jwt', 'the access token is malformed');
  });

  t.test('a missing scope is insufficient_scope, 403', async (t) => {
    const err = await verifier.verify(await issued('read'), { requiredScopes: ['read', 'write'] }).catch((e: unknown) => e);
    t.match(err, { code: 'insufficient_scope', status: 403, description: 'the access token lacks the scope write' });
    t.equal(
      (err as TokenVerificationError).wwwAuthenticate,
      `Bearer realm="${ISSUER}", error="insufficient_scope", error_description="the access token lacks the scope write", scope="read write"`,
    );
  });

  t.test('requireScope guards Fastify routes (RFC 6750)', async (t) => {
    const api = Fastify();
    api.get('/api/me', { preHandler: requireScope(verifier, 'read') }, async (request) => ({
      sub: request.accessToken?.sub,
      scope: request.accessToken?.scope,
    }));
    t.teardown(() => api.close());
    const get = (authorization?: string) => api.inject({ url: '/api/me', headers: authorization ? { authorization } : {} });

    const ok = await get(`Bearer ${await issued('read')}`);
    t.equal(ok.statusCode, 200);
    t.same(ok.json(), { sub: 'service', scope: 'read' });
    t.equal((await get(`bearer ${await issued('read')}`)).statusCode, 200, 'the scheme is case-insensitive');

    const none = await get();
    t.equal(none.statusCode, 401);
    t.equal(none.headers['www-authenticate'], `Bearer realm="${ISSUER}", scope="read"`, 'RFC 6750 §3: the scope the route requires');

    const bad = await get('Bearer not.a.jwt');
    t.equal(bad.statusCode, 401);
    t.same(bad.json(), { error: 'invalid_token', error_description: 'the access token is malformed' });
    t.match(bad.headers['www-authenticate'], 'error="invalid_token"');

    const weak = await get(`Bearer ${await issued('write')}`);
    t.equal(weak.statusCode, 403);
    t.same(weak.json(), { error: 'insufficient_scope', error_description: 'the access token lacks the scope read' });
  });
});
