import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { codeRequest, formAction, formFields } from './browser-flow.js';
import { HttpBrowser, postAsClient } from './http-browser.js';
import { keysDirWithSigningKey } from './keys.js';
import { cheapPasswordHash } from './passwords.js';
import { freePort } from '../../harness/ports.js';
import { type ServerProcess, startServerProcess } from '../../harness/process.js';
import { registryFiles } from './registries.js';

/** The servers of the failover test (test/helpers/failover-load.ts) and how the load talks to them. */

const SECRET = 'failover-test-secret-0123456789abcdefghijklmn';
export const REDIRECT = 'https://app.example.com/callback';
const PASSWORD = 'alice-password-1';
export const COMMAND_TIMEOUT_MS = 1000;
/** A request that takes longer than this is cut and counted as `timeout` (it would be a hang). */
export const REQUEST_LIMIT_MS = 10_000;

/** Two server processes on the topology that `redisEnv` names, with a confidential client `web` and a user. */
export async function startServers(t: Test, redisEnv: Record<string, string>, minReplicasAck: number): Promise<ServerProcess[]> {
  const { clientsFile, usersFile } = await registryFiles(
    t,
    [
      {
        client_id: 'web',
        client_secret_hash: hashClientSecret(SECRET),
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        scope: 'read',
      },
    ],
    [{ username: 'alice', password_hash: cheapPasswordHash(PASSWORD) }],
  );
  const env = {
    ISSUER: 'https://auth.example.com',
    KEYS_DIR: await keysDirWithSigningKey(t),
    CLIENTS_FILE: clientsFile,
    USERS_FILE: usersFile,
    SESSION_SECRET: 'failover-session-secret-0123456789abcdef',
    // Every second presentation of a rotated token is reuse: no grace answer hides one.
    REFRESH_REUSE_GRACE: '0',
    AUTHORIZATION_CODE_TTL: '600',
    // Every code is approved on the consent page (issueCodes posts it each time).
    CONSENT_TTL: '0',
    REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
    REDIS_MIN_REPLICAS_ACK: String(minReplicasAck),
    // Errors only: why each server_error happened goes into the figures (storeErrors).
    LOG_LEVEL: 'error',
    ...redisEnv,
  };
  return Promise.all([0, 1].map(async () => startServerProcess(t, { ...env, PORT: String(await freePort()) }, { readyPath: '/readyz' })));
}

/** Codes issued by the real flow: one signed-in browser approves `count` authorization requests. */
export async function issueCodes(server: ServerProcess, count: number, challenge: string): Promise<string[]> {
  const query = new URLSearchParams(codeRequest('web', REDIRECT, challenge));
  const browser = new HttpBrowser();
  const login = await (await browser.request(`${server.baseUrl}/oauth2/authorize?${query}`)).text();
  const signedIn = await browser.request(`${server.baseUrl}${formAction(login)}`, {
    ...formFields(login),
    username: 'alice',
    password: PASSWORD,
  });
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  const codes: string[] = [];
  while (codes.length < count) {
    const consent = await (await browser.request(`${server.baseUrl}/oauth2/authorize?${query}`)).text();
    const decided = await browser.request(`${server.baseUrl}${formAction(consent)}`, { ...formFields(consent), decision: 'allow' });
    const code = new URL(decided.headers.get('location') ?? 'x:').searchParams.get('code');
    if (decided.status !== 303 || !code) throw new Error(`consent answered ${decided.status}`);
    codes.push(code);
  }
  return codes;
}

/** A back-channel POST as the client `web`. */
export const postToken = (server: ServerProcess, path: string, params: Record<string, string>) =>
  postAsClient(`${server.baseUrl}${path}`, { id: 'web', secret: SECRET }, params, REQUEST_LIMIT_MS);

/** A refresh token presented by `web`: the answer as `<status> <error>` (`200` when accepted). */
export async function refreshAnswer(server: ServerProcess, token: string): Promise<string> {
  const res = await postToken(server, '/oauth2/token', { grant_type: 'refresh_token', refresh_token: token });
  return `${res.status} ${res.body.error ?? ''}`.trim();
}

/** The status of the server's /readyz (0: no answer). */
export async function readyzStatus(server: ServerProcess): Promise<number> {
  const res = await fetch(`${server.baseUrl}/readyz`, { signal: AbortSignal.timeout(REQUEST_LIMIT_MS) }).catch(() => undefined);
  await res?.body?.cancel();
  return res?.status ?? 0;
}

/** How many of `items` `accepted` says yes to, asking for up to 8 at a time. */
export async function countAccepted<T>(items: readonly T[], accepted: (item: T, index: number) => Promise<boolean>): Promise<number> {
  let count = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < items.length; i = next++) if (await accepted(items[i] as T, i)) count += 1;
    }),
  );
  return count;
}
