import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { pkcePair } from '../helpers/browser-flow.js';
import { approveOverHttp } from '../helpers/http-browser.js';
import { keysDirWithSigningKey, tempDir } from '../helpers/keys.js';
import { cheapPasswordHash } from '../helpers/passwords.js';
import { freePort } from '../helpers/ports.js';
import { type ServerProcess, startServerProcess } from '../helpers/process.js';
import { startPrivateRedis } from '../helpers/redis.js';

const SECRET = 'instances-test-secret-0123456789abcdefghijklmn';
const REDIRECT = 'https://app.example.com/callback';

t.test('two instances behind one issuer share one Redis and one keys folder', async (t) => {
  const redis = await startPrivateRedis(t);
  const dir = await tempDir(t);
  const clientsFile = join(dir, 'clients.json');
  const usersFile = join(dir, 'users.json');
  await writeFile(
    clientsFile,
    JSON.stringify({
      clients: [
        {
          client_id: 'web',
          client_secret_hash: hashClientSecret(SECRET),
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code', 'refresh_token', 'password'],
          scope: 'read write',
        },
      ],
    }),
  );
  await writeFile(usersFile, JSON.stringify({ users: [{ username: 'alice', password_hash: cheapPasswordHash('alice-password-1') }] }));
  const keysDir = await keysDirWithSigningKey(t);
  const issuer = 'https://auth.example.com';
  const shared = {
    ISSUER: issuer,
    REDIS_URL: redis.url,
    KEYS_DIR: keysDir,
    CLIENTS_FILE: clientsFile,
    USERS_FILE: usersFile,
    SESSION_SECRET: 'shared-session-secret-0123456789abcdef',
    LOGIN_MAX_FAILURES: '3',
  };
  const a = await startServerProcess(t, { ...shared, PORT: String(await freePort()) });
  const b = await startServerProcess(t, { ...shared, PORT: String(await freePort()) });

  const post = async (server: ServerProcess, path: string, params: Record<string, string>) => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`web:${SECRET}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(params),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, string> };
  };
  const passwordTokens = async (server: ServerProcess) =>
    (await post(server, '/oauth2/token', { grant_type: 'password', username: 'alice', password: 'alice-password-1' })).body;

  t.test('a code issued by A is redeemed at B, once', async (t) => {
    const { verifier, challenge } = pkcePair();
    const location = await approveOverHttp(
      a.baseUrl,
      {
        response_type: 'code',
        client_id: 'web',
        redirect_uri: REDIRECT,
        scope: 'read',
        state: 's',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      },
      { username: 'alice', password: 'alice-password-1' },
    );
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

  t.test('rate-limit counts are shared', async (t) => {
    for (const server of [a, b, a]) {
      const res = await post(server, '/oauth2/token', { grant_type: 'password', username: 'alice', password: 'wrong' });
      t.equal(res.status, 400);
    }
    const blocked = await post(b, '/oauth2/token', { grant_type: 'password', username: 'alice', password: 'alice-password-1' });
    t.equal(blocked.status, 429, 'three failures across A and B reach the limit of 3');
  });
});
