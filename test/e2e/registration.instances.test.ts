import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { pkcePair } from '../helpers/browser-flow.js';
import { approveOverHttp } from '../helpers/http-browser.js';
import { keysDirWithSigningKey, tempDir } from '../helpers/keys.js';
import { cheapPasswordHash } from '../helpers/passwords.js';
import { freePort } from '../../harness/ports.js';
import { type ServerProcess, startServerProcess } from '../../harness/process.js';
import { startPrivateRedis } from '../../harness/redis.js';

const MCP = 'https://mcp.example.com/mcp';

/** What a JSON or form request to a server answered. */
async function call(server: ServerProcess, path: string, init: RequestInit = {}) {
  const res = await fetch(`${server.baseUrl}${path}`, init);
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

const tokenRequest = (params: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(params),
});

t.test('two built servers on one Redis: a client registered at A works at B, and its deletion at B holds at A', async (t) => {
  const redis = await startPrivateRedis(t);
  const dir = await tempDir(t);
  const usersFile = join(dir, 'users.json');
  const resourcesFile = join(dir, 'resources.json');
  await writeFile(usersFile, JSON.stringify({ users: [{ username: 'alice', password_hash: cheapPasswordHash('alice-password-1') }] }));
  await writeFile(resourcesFile, JSON.stringify({ resources: [{ resource: MCP, scope: 'tools' }] }));
  const shared = {
    ISSUER: 'https://auth.example.com',
    REDIS_URL: redis.url,
    KEYS_DIR: await keysDirWithSigningKey(t),
    USERS_FILE: usersFile,
    RESOURCES_FILE: resourcesFile,
    SESSION_SECRET: 'shared-session-secret-0123456789abcdef',
    DYNAMIC_CLIENT_REGISTRATION: 'open',
  };
  const a = await startServerProcess(t, { ...shared, PORT: String(await freePort()) });
  const b = await startServerProcess(t, { ...shared, PORT: String(await freePort()) });

  const registered = await call(a, '/oauth2/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'MCP client',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    }),
  });
  t.equal(registered.status, 201);
  const clientId = registered.body.client_id as string;
  const management = { authorization: `Bearer ${registered.body.registration_access_token as string}` };
  t.equal(registered.body.registration_client_uri, `https://auth.example.com/oauth2/register/${clientId}`);

  const { verifier, challenge } = pkcePair();
  const redirectUri = 'http://127.0.0.1:40123/callback';
  const location = await approveOverHttp(
    b.baseUrl,
    {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: 'tools',
      resource: MCP,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    },
    { username: 'alice', password: 'alice-password-1' },
  );
  const code = new URL(location).searchParams.get('code') as string;
  const tokens = await call(
    a,
    '/oauth2/token',
    tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: clientId,
      resource: MCP,
    }),
  );
  t.equal(tokens.status, 200, 'approved at B, redeemed at A');
  const refreshed = await call(
    b,
    '/oauth2/token',
    tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token as string, client_id: clientId, resource: MCP }),
  );
  t.equal(refreshed.status, 200, 'refreshed at B');

  t.equal((await call(b, `/oauth2/register/${clientId}`, { headers: management })).body.client_name, 'MCP client');
  const deleted = await fetch(`${b.baseUrl}/oauth2/register/${clientId}`, { method: 'DELETE', headers: management });
  t.equal(deleted.status, 204, 'deleted at B');
  const afterDeletion = await call(
    a,
    '/oauth2/token',
    tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token as string, client_id: clientId }),
  );
  t.same(afterDeletion, { status: 401, body: { error: 'invalid_client', error_description: 'client authentication failed' } });
  t.equal((await call(a, `/oauth2/register/${clientId}`, { headers: management })).status, 401);
  t.match(a.output(), /"msg":"client registered"/, 'A logged the registration');
  t.notMatch(a.output() + b.output(), registered.body.registration_access_token as string, 'never the token');
});
