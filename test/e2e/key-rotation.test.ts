import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { readKeyFolder } from '../../src/keys/key-file.js';
import { createVerifier } from '@oauth2-token-service/verifier';
import { tempDir } from '../helpers/keys.js';
import { freePort } from '../../harness/ports.js';
import { CLI, runNode, type ServerProcess, startServerProcess } from '../../harness/process.js';

const SECRET = 'rotation-test-secret-0123456789abcdefghijklmnop';
const TOKEN_TTL = 4;
const DELAY = 3;

const sleepUntil = async (epochSeconds: number) => {
  const wait = epochSeconds * 1000 - Date.now() + 150;
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
};

async function token(server: ServerProcess): Promise<string> {
  const res = await fetch(`${server.baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`svc:${SECRET}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  if (res.status !== 200) throw new Error(`token request answered ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

const kidOf = (jwt: string) => decodeProtectedHeader(jwt).kid as string;

t.test('key rotation on a running server, end to end', async (t) => {
  const dir = await tempDir(t);
  const keysDir = join(dir, 'keys');
  const clientsFile = join(dir, 'clients.json');
  await writeFile(
    clientsFile,
    JSON.stringify({
      clients: [{ client_id: 'svc', client_secret_hash: hashClientSecret(SECRET), grant_types: ['client_credentials'], scope: 'read' }],
    }),
  );
  const keys = async (command: string, ...args: string[]) => {
    const run = await runNode(CLI, ['keys', command, '--dir', keysDir, '--access-token-ttl', String(TOKEN_TTL), ...args]);
    if (run.code !== 0) throw new Error(`keys ${command} failed: ${run.stderr}`);
    return run.stdout;
  };
  // Without --alg: an ES256 chain (access tokens) and an RS256 chain (ID tokens).
  await keys('rotate');
  const chain = async (alg: string) => (await readKeyFolder(keysDir)).filter((k) => k.alg === alg);
  const [first] = await chain('ES256');
  const [firstRs] = await chain('RS256');
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const server = await startServerProcess(t, {
    PORT: String(port),
    ISSUER: issuer,
    KEYS_DIR: keysDir,
    CLIENTS_FILE: clientsFile,
    ACCESS_TOKEN_TTL: String(TOKEN_TTL),
    KEYS_RELOAD_INTERVAL: '0',
  });
  const jwksKids = async () =>
    ((await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid).sort();
  const reload = async (expected: string[]) => {
    server.child.kill('SIGHUP');
    const deadline = Date.now() + 5000;
    while (JSON.stringify(await jwksKids()) !== JSON.stringify([...expected].sort())) {
      if (Date.now() > deadline) throw new Error(`JWKS is ${JSON.stringify(await jwksKids())}, expected ${JSON.stringify(expected)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  // A resource server that caches the JWKS for long and may refetch at once on an unknown kid.
  const cachingVerifier = createVerifier({ issuer, audience: issuer, jwksCacheSeconds: 3600, jwksCooldownSeconds: 0 });
  const beforeRotation = await token(server);
  t.equal(kidOf(beforeRotation), first?.kid, 'access tokens are signed by the ES256 chain');
  await cachingVerifier.verify(beforeRotation);
  const readyz = (await (await fetch(`${issuer}/readyz`)).json()) as { checks: { signing_algorithms: unknown } };
  t.same(readyz.checks.signing_algorithms, { ES256: true, RS256: true }, '/readyz: a key signs in each chain the server needs');

  // 1. After a rotation with a delay, the JWKS publishes the new keys while tokens are still signed with the old one.
  await keys('rotate', '--delay', String(DELAY));
  const second = (await chain('ES256')).find((k) => k.kid !== first?.kid);
  const secondRs = (await chain('RS256')).find((k) => k.kid !== firstRs?.kid);
  await reload([first, second, firstRs, secondRs].map((k) => k?.kid as string));
  const duringDelay = await token(server);
  t.equal(kidOf(duringDelay), first?.kid, '1. still signed with the old key during the delay');

  // 2. A verifier that cached the old JWKS keeps accepting tokens signed before the rotation.
  t.match(await cachingVerifier.verify(beforeRotation), { sub: 'svc' }, '2. a token from before the rotation');
  t.match(await cachingVerifier.verify(duringDelay), { sub: 'svc' });

  // 3. Once the delay has passed, new tokens carry the new kid and the same verifier accepts them.
  await sleepUntil(second?.signs_from as number);
  const afterDelay = await token(server);
  t.equal(kidOf(afterDelay), second?.kid, '3. the new key signs once the delay has passed (no reload needed)');
  t.match(await cachingVerifier.verify(afterDelay), { sub: 'svc' }, '3. accepted after a refetch on the unknown kid');

  // 4. Once the old keys' tokens have all expired, keys prune removes them from the folder and the JWKS.
  const retired = (await readKeyFolder(keysDir)).find((k) => k.kid === first?.kid);
  await sleepUntil(retired?.publish_until as number);
  const pruned = await keys('prune');
  t.match(pruned, new RegExp(`deleted  ${first?.kid} ES256`), '4. keys prune deletes the expired key of each chain');
  t.match(pruned, new RegExp(`deleted  ${firstRs?.kid} RS256`));
  await reload([second?.kid as string, secondRs?.kid as string]);
  t.same(await jwksKids(), [second?.kid, secondRs?.kid].sort(), '4. the JWKS no longer lists the old keys');

  // 5. keys revoke removes a key at once, and its tokens are refused once verifiers refresh.
  t.match(await keys('revoke', second?.kid as string), new RegExp(`revoked  ${second?.kid} ES256`));
  const [replacement] = await chain('ES256');
  await reload([replacement?.kid as string, secondRs?.kid as string]);
  t.equal(kidOf(await token(server)), replacement?.kid, '5. a replacement key signs at once');
  const refreshedVerifier = createVerifier({ issuer, audience: issuer });
  await t.rejects(
    refreshedVerifier.verify(afterDelay),
    { code: 'invalid_token', description: 'the access token is signed with an unknown key' },
    '5. tokens of the revoked key are refused',
  );
});
