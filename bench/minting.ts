import { RedisStore } from '../src/store/redis.js';
import type { AuthorizationCodeRecord } from '../src/store/types.js';
import { mintOpaqueToken, newGrantId } from '../src/tokens/opaque.js';
import { CLIENT_ID, CODE_CHALLENGE, REDIRECT_URI, RESOURCE, SCOPE, SUBJECT } from './fixtures.js';

/**
 * Authorization codes minted ahead of a redemption round, as each server's authorization
 * endpoint would have saved them after consent: one grant per code, PKCE S256, the bench
 * resource and scope. Minting is not measured.
 */

const CODE_TTL_SECONDS = 600;
const BATCH = 200;

const RECORD: AuthorizationCodeRecord = {
  clientId: CLIENT_ID,
  redirectUri: REDIRECT_URI,
  redirectUriSent: true,
  scope: [SCOPE],
  resources: [RESOURCE],
  sub: SUBJECT,
  authTime: Math.floor(Date.now() / 1000),
  codeChallenge: CODE_CHALLENGE,
};

/** Ours: saved through our own Redis store, as the authorization endpoint does (`record` changes the client or the scope). */
export async function mintOurCodes(redisUrl: string, count: number, record: Partial<AuthorizationCodeRecord> = {}): Promise<string[]> {
  const store = new RedisStore({
    connection: { topology: { kind: 'standalone', url: redisUrl }, commandTimeoutMs: 5000 },
    keyPrefix: 'oauth:',
    replicaAck: { minReplicas: 0, timeoutMs: 500 },
  });
  await store.connect();
  try {
    const codes: string[] = [];
    for (let i = 0; i < count; i += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, count - i) }, () => mintOpaqueToken(newGrantId()));
      await Promise.all(batch.map((code) => store.saveAuthorizationCode(code.ref, { ...RECORD, ...record }, CODE_TTL_SECONDS)));
      codes.push(...batch.map((code) => code.value));
    }
    return codes;
  } finally {
    await store.close();
  }
}

/** The peer's: saved through its own models and adapter (bench/peer/server.ts). */
export async function mintPeerCodes(peerUrl: string, count: number): Promise<string[]> {
  const response = await fetch(`${peerUrl}/bench/codes?n=${count}&code_challenge=${CODE_CHALLENGE}`, { method: 'POST' });
  if (response.status !== 200) throw new Error(`the peer did not mint codes: ${response.status} ${await response.text()}`);
  return (await response.json()) as string[];
}
