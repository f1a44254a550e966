import { createHash, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JWK } from 'jose';
import { generateClientSecret, hashClientSecret } from '../src/clients/secret.js';
import { TOKEN_EXCHANGE_GRANT } from '../src/clients/token-exchange-policy.js';
import { rotateKeys } from '../src/keys/rotation.js';

/**
 * What both servers are configured with: one confidential client (client_secret_basic)
 * allowed client_credentials, authorization_code and refresh_token; one protected resource
 * (the tokens' aud) with scope `read`; an ES256 signing key each. Ours also has a
 * private_key_jwt client, a client that exchanges the tokens sent to that resource for
 * tokens of a second one, that second resource, and a workload trust (WORKLOAD_TRUSTS_FILE). Written to a temporary folder removed
 * however the bench ends.
 */

export const CLIENT_ID = 'bench-client';
/** The same client, registered with id_token_signed_response_alg ES256 (the other uses the RS256 default). */
export const ES256_CLIENT_ID = 'bench-client-es256';
/** The same grant, authenticating with ES256 client assertions (private_key_jwt) signed with `assertionKey`. */
export const PKJWT_CLIENT_ID = 'bench-client-pkjwt';
export const ASSERTION_KID = 'bench-pkjwt-1';
/** Exchanges tokens whose aud is RESOURCE for tokens of DOWNSTREAM_RESOURCE (RFC 8693), with the bench client's secret. */
export const EXCHANGE_CLIENT_ID = 'bench-exchanger';
export const RESOURCE = 'https://api.bench.example';
export const DOWNSTREAM_RESOURCE = 'https://downstream.bench.example';
export const SCOPE = 'read';
/** The workload issuer of phase (g) (a SPIFFE trust domain, its key inline in WORKLOAD_TRUSTS_FILE) and its workload. */
export const WORKLOAD_ISSUER = 'spiffe://bench.example';
export const WORKLOAD_SUBJECT = 'spiffe://bench.example/ns/bench/sa/job';
export const WORKLOAD_KID = 'bench-workload-1';
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
  /** PKJWT_CLIENT_ID's private key (P-256), its public half in CLIENTS_FILE as ASSERTION_KID. */
  readonly assertionKey: KeyObject;
  /** WORKLOAD_ISSUER's trust: its public key inline, one rule for WORKLOAD_SUBJECT (RESOURCE, SCOPE). */
  readonly workloadTrustsFile: string;
  /** WORKLOAD_ISSUER's private key (P-256), as WORKLOAD_KID. */
  readonly workloadKey: KeyObject;
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
  const assertionKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = assertionKeys.publicKey.export({ format: 'jwk' });
  const pkjwt = {
    client_id: PKJWT_CLIENT_ID,
    grant_types: ['client_credentials'],
    scope: SCOPE,
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys: [{ kty, crv, x, y, kid: ASSERTION_KID, alg: 'ES256', use: 'sig' }] },
  };
  const exchanger = {
    client_id: EXCHANGE_CLIENT_ID,
    client_secret_hash: client.client_secret_hash,
    grant_types: [TOKEN_EXCHANGE_GRANT],
    token_endpoint_auth_method: 'client_secret_basic',
    token_exchange: { subject_audiences: [RESOURCE], target_resources: [DOWNSTREAM_RESOURCE] },
  };
  await writeFile(clientsFile, JSON.stringify({ clients: [client, es256, pkjwt, exchanger] }), { mode: 0o600 });
  const resources = [RESOURCE, DOWNSTREAM_RESOURCE].map((resource) => ({ resource, scope: SCOPE }));
  await writeFile(resourcesFile, JSON.stringify({ resources }), { mode: 0o600 });
  const peerJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as JWK;
  const workloadKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const workloadJwk = { ...workloadKeys.publicKey.export({ format: 'jwk' }), kid: WORKLOAD_KID, alg: 'ES256', use: 'sig' };
  const workloadTrustsFile = join(dir, 'trusts.json');
  const trust = {
    id: 'bench',
    issuer: WORKLOAD_ISSUER,
    jwks: { keys: [workloadJwk] },
    rules: [{ sub: WORKLOAD_SUBJECT, resources: [RESOURCE], scope: SCOPE }],
  };
  await writeFile(workloadTrustsFile, JSON.stringify({ trusts: [trust] }), { mode: 0o600 });
  return {
    keysDir,
    clientsFile,
    resourcesFile,
    clientSecret,
    basicAuth: `Basic ${Buffer.from(`${CLIENT_ID}:${clientSecret}`).toString('base64')}`,
    peerJwk,
    assertionKey: assertionKeys.privateKey,
    workloadTrustsFile,
    workloadKey: workloadKeys.privateKey,
  };
}
