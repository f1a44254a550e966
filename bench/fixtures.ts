import { createHash, generateKeyPairSync } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JWK } from 'jose';
import { generateClientSecret, hashClientSecret } from '../src/clients/secret.js';
import { rotateKeys } from '../src/keys/rotation.js';

/**
 * What both servers are configured with: one confidential client (client_secret_basic)
 * allowed client_credentials, authorization_code and refresh_token; one protected resource
 * (the tokens' aud) with scope `read`; an ES256 signing key each. Written to a temporary
 * folder removed however the bench ends.
 */

export const CLIENT_ID = 'bench-client';
/** The same client, registered with id_token_signed_response_alg ES256 (the other uses the RS256 default). */
export const ES256_CLIENT_ID = 'bench-client-es256';
export const RESOURCE = 'https://api.bench.example';
export const SCOPE = 'read';
export const REDIRECT_URI = 'https://client.bench.example/callback';
export const SUBJECT = 'bench-user';
/** One PKCE verifier for every minted code (RFC 7636: 43 to 128 characters). */
export const CODE_VERIFIER = 'bench-code-verifier-0123456789-abcdefghijklmnopqrstuvwxyz';
export const CODE_CHALLENGE = createHash('sha256').update(CODE_VERIFIER).digest('base64url');

export interface Fixtures {
  readonly keysDir: string;
  readonly clientsFile: string;
  readonly resourcesFile: string;
  readonly clientSecret: string;
  readonly basicAuth: string;
  /** The peer's private signing key. */
  readonly peerJwk: JWK;
}

export async function createFixtures(): Promise<Fixtures> {
  const dir = await mkdtemp(join(tmpdir(), 'oauth-bench-'));
  // The folder holds a private key: removed however the bench ends (Ctrl-C included).
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const keysDir = join(dir, 'keys');
  const clientsFile = join(dir, 'clients.json');
  const resourcesFile = join(dir, 'resources.json');
  const clientSecret = generateClientSecret();
  await mkdir(keysDir, { mode: 0o700 });
  await rotateKeys(keysDir, { delay: 0, accessTokenTtl: 3600 });
  const client = {
    client_id: CLIENT_ID,
    client_secret_hash: hashClientSecret(clientSecret),
    grant_types: ['client_credentials', 'authorization_code', 'refresh_token'],
    redirect_uris: [REDIRECT_URI],
    scope: SCOPE,
    token_endpoint_auth_method: 'client_secret_basic',
  };
  const es256 = { ...client, client_id: ES256_CLIENT_ID, id_token_signed_response_alg: 'ES256' };
  await writeFile(clientsFile, JSON.stringify({ clients: [client, es256] }), { mode: 0o600 });
  await writeFile(resourcesFile, JSON.stringify({ resources: [{ resource: RESOURCE, scope: SCOPE }] }), { mode: 0o600 });
  const peerJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as JWK;
  return {
    keysDir,
    clientsFile,
    resourcesFile,
    clientSecret,
    basicAuth: `Basic ${Buffer.from(`${CLIENT_ID}:${clientSecret}`).toString('base64')}`,
    peerJwk,
  };
}
