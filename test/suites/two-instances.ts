import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { codeRequest, pkcePair } from '../helpers/browser-flow.js';
import { dpopKey, dpopProof } from '../helpers/dpop.js';
import { approveOverHttp, decideDeviceOverHttp, postAsClient } from '../helpers/http-browser.js';
import { keysDirWithSigningKey } from '../helpers/keys.js';
import { cheapPasswordHash } from '../helpers/passwords.js';
import { freePort } from '../../harness/ports.js';
import { type ServerProcess, startServerProcess } from '../../harness/process.js';
import { registryFiles } from '../helpers/registries.js';

const SECRET = 'instances-test-secret-0123456789abcdefghijklmn';
const REDIRECT = 'https://app.example.com/callback';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * Two server processes (the built code) behind one issuer, on one store given by
 * `redisEnv` (REDIS_URL, REDIS_CLUSTER_NODES, ...): codes, refresh tokens, revocations
 * and limits cross from one to the other.
 */
export function twoInstancesSuite(t: Test, name: string, redisEnv: (t: Test) => Promise<Record<string, string>>): void {
  t.test(`two instances behind one issuer share one Redis (${name}) and one keys folder`, async (t) => {
    const redis = await redisEnv(t);
    const { clientsFile, usersFile } = await registryFiles(
      t,
      [
        {
          client_id: 'web',
          client_secret_hash: hashClientSecret(SECRET),
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code', 'refresh_token', 'password', DEVICE_GRANT],
          scope: 'read write',
        },
      ],
      [{ username: 'alice', password_hash: cheapPasswordHash('alice-password-1') }],
    );
    const keysDir = await keysDirWithSigningKey(t);
    const issuer = 'https://auth.example.com';
    const shared = {
      ISSUER: issuer,
      ...redis,
      KEYS_DIR: keysDir,
      CLIENTS_FILE: clientsFile,
      USERS_FILE: usersFile,
      SESSION_SECRET: 'shared-session-secret-0123456789abcdef',
      LOGIN_MAX_FAILURES: '3',
      // Only requests with a DPoP proof need a nonce; the others are unaffected.
      DPOP_REQUIRE_NONCE: 'true',
    };
    const a = await startServerProcess(t, { ...shared, PORT: String(await freePort()) });
    const b = await startServerProcess(t, { ...shared, PORT: String(await freePort()) });

    const post = (server: ServerProcess, path: string, params: Record<string, string>) =>
      postAsClient(`${server.baseUrl}${path}`, { id: 'web', secret: SECRET }, params);
    const passwordTokens = async (server: ServerProcess) =>
      (await post(server, '/oauth2/token', { grant_type: 'password', username: 'alice', password: 'alice-password-1' })).body;

    t.test('a code issued by A is redeemed at B, once', async (t) => {
      const { verifier, challenge } = pkcePair();
      const location = await approveOverHttp(a.baseUrl, codeRequest('web', REDIRECT, challenge), {
        username: 'alice',
        password: 'alice-password-1',
      });
      const code = new URL(location).searchParams.get('code') as string;
      const redeem = (server: ServerProcess) =>
        post(server, '/oauth2/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
      const atB = await redeem(b);
      t.equal(atB.status, 200);
      t.ok(atB.body.refresh_token);
      const replayAtA = await redeem(a);
      t.equal(replayAtA.status, 400);
      t.equal(replayAtA.body.error, 'invalid_grant');
      t.same(
        (await post(a, '/oauth2/introspect', { token: atB.body.access_token as string })).body,
        { active: false },
        "A sees that the replay revoked B's tokens",
      );
    });

    t.test('a refresh token issued at A rotates at B; a retry at A within the grace window gets the same successor', async (t) => {
      const first = await passwordTokens(a);
      const atB = await post(b, '/oauth2/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token as string });
      t.equal(atB.status, 200);
      const retryAtA = await post(a, '/oauth2/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token as string });
      t.same(retryAtA.body, atB.body, 'the same successor tokens');
      const reuseAtB = await post(b, '/oauth2/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token as string });
      t.equal(reuseAtB.body.error, 'invalid_grant', 'a second retry is reuse');
      t.equal(
        (await post(a, '/oauth2/token', { grant_type: 'refresh_token', refresh_token: atB.body.refresh_token as string })).status,
        400,
        'which revoked the family everywhere',
      );
    });

    t.test('a token revoked at B is inactive in introspection at A', async (t) => {
      const tokens = await passwordTokens(a);
      t.match((await post(a, '/oauth2/introspect', { token: tokens.access_token as string })).body, { active: true });
      t.equal((await post(b, '/oauth2/revoke', { token: tokens.access_token as string })).status, 200);
      t.same((await post(a, '/oauth2/introspect', { token: tokens.access_token as string })).body, { active: false });
      t.equal((await post(b, '/oauth2/revoke', { token: tokens.refresh_token as string })).status, 200);
      t.same((await post(a, '/oauth2/introspect', { token: tokens.refresh_token as string })).body, { active: false });
    });

    t.test('DPoP: a nonce from A works at B; a proof used at B is a replay at A (RFC 9449 §8, §11.1)', async (t) => {
      const key = await dpopKey();
      const tokenRequest = async (server: ServerProcess, proof: string) => {
        const res = await fetch(`${server.baseUrl}/oauth2/token`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`web:${SECRET}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
            dpop: proof,
          },
          body: new URLSearchParams({ grant_type: 'password', username: 'alice', password: 'alice-password-1' }),
          signal: AbortSignal.timeout(10_000),
        });
        return { status: res.status, nonce: res.headers.get('dpop-nonce'), body: (await res.json()) as Record<string, string> };
      };
      const proof = (nonce?: string) =>
        dpopProof(key, { htu: `${issuer}/oauth2/token`, iat: Math.floor(Date.now() / 1000), ...(nonce ? { nonce } : {}) });
      const asked = await tokenRequest(a, await proof());
      t.equal(asked.body.error, 'use_dpop_nonce');
      const withNonce = await proof(asked.nonce as string);
      const atB = await tokenRequest(b, withNonce);
      t.equal(atB.status, 200, "B accepts A's nonce (one SESSION_SECRET)");
      t.equal(atB.body.token_type, 'DPoP');
      const replayAtA = await tokenRequest(a, withNonce);
      t.same(
        [replayAtA.status, replayAtA.body],
        [400, { error: 'invalid_dpop_proof', error_description: 'the DPoP proof was already used' }],
      );
    });

    t.test('a device code started at A is approved at B and polled at A, once; its polling state is shared (RFC 8628)', async (t) => {
      const started = (await post(a, '/oauth2/device_authorization', { scope: 'read' })).body;
      t.equal(started.verification_uri, `${issuer}/device`);
      const decided = await decideDeviceOverHttp(b.baseUrl, started.user_code as string, {
        username: 'alice',
        password: 'alice-password-1',
      });
      t.same([decided.status, decided.text.includes('<h1>Device connected</h1>')], [200, true]);
      const devicePoll = (server: ServerProcess, code: string) =>
        post(server, '/oauth2/token', { grant_type: DEVICE_GRANT, device_code: code });
      const atA = await devicePoll(a, started.device_code as string);
      t.equal(atA.status, 200);
      t.equal(atA.body.scope, 'read');
      t.same((await devicePoll(b, started.device_code as string)).body, {
        error: 'invalid_grant',
        error_description: 'the device code was already used',
      });
      const other = (await post(b, '/oauth2/device_authorization', { scope: 'read' })).body;
      t.equal((await devicePoll(a, other.device_code as string)).body.error, 'authorization_pending');
      t.same((await devicePoll(b, other.device_code as string)).body, {
        error: 'slow_down',
        error_description: 'polled too often: wait at least 10 seconds between requests',
      });
    });

    t.test('rate-limit counts are shared', async (t) => {
      for (const server of [a, b, a]) {
        const res = await post(server, '/oauth2/token', { grant_type: 'password', username: 'alice', password: 'wrong' });
        t.equal(res.status, 400);
      }
      const blocked = await post(b, '/oauth2/token', { grant_type: 'password', username: 'alice', password: 'alice-password-1' });
      t.equal(blocked.status, 429, 'three failures across A and B reach the limit of 3');
    });
  });
}
