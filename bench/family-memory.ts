import type { Redis } from 'ioredis';
import type { BenchClient } from './grant-loads.js';
import { FORM_HEADERS } from './grant-loads.js';

/**
 * Redis bytes per refresh family: `MEMORY USAGE` summed over a server's keys (codes left
 * out), divided by the number of families, once after the code redemptions that started
 * them, after every family rotated once, and after `rotations` rotations each (so a growth
 * per rotation shows apart from what the first rotation adds once). Keys that expire within
 * seconds (ours: the grace record of a just-rotated token, REFRESH_REUSE_GRACE) are
 * counted apart: they are not what a family keeps.
 */

export interface FamilyMemory {
  readonly families: number;
  readonly rotations: number;
  readonly afterRedemption: number;
  readonly afterFirstRotation: number;
  readonly afterRotations: number;
  /** Bytes per family in short-lived keys right after the rotations. */
  readonly transientAfterRotations: number;
}

export interface KeyLayout {
  readonly prefix: string;
  readonly codeKeys: RegExp;
  /** Keys that expire within seconds; undefined: none. */
  readonly transientKeys?: RegExp;
}

async function postToken(client: BenchClient, body: string): Promise<string> {
  const response = await fetch(client.tokenUrl, {
    method: 'POST',
    headers: { ...FORM_HEADERS, authorization: client.authorization },
    body,
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`token request answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { refresh_token: string }).refresh_token;
}

export function redeem(client: BenchClient, code: string): Promise<string> {
  const redirect = encodeURIComponent(client.redirectUri);
  return postToken(client, `grant_type=authorization_code&code=${code}&redirect_uri=${redirect}&code_verifier=${client.codeVerifier}`);
}

/** Bytes kept and bytes in transient keys, codes left out. */
async function bytesOf(admin: Redis, layout: KeyLayout): Promise<{ kept: number; transient: number }> {
  const total = { kept: 0, transient: 0 };
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', `${layout.prefix}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys.filter((k) => !layout.codeKeys.test(k))) {
      const bytes = Number(await admin.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
      if (layout.transientKeys?.test(key)) total.transient += bytes;
      else total.kept += bytes;
    }
  } while (cursor !== '0');
  return total;
}

export async function measureFamilyMemory(
  admin: Redis,
  layout: KeyLayout,
  client: BenchClient,
  codes: readonly string[],
  rotations: number,
): Promise<FamilyMemory> {
  const tokens = await Promise.all(codes.map((code) => redeem(client, code)));
  const afterRedemption = await bytesOf(admin, layout);
  const rotate = (token: string) => postToken(client, `grant_type=refresh_token&refresh_token=${token}`);
  const rotated = await Promise.all(tokens.map(rotate));
  const afterFirstRotation = await bytesOf(admin, layout);
  await Promise.all(
    rotated.map(async (first) => {
      let token = first;
      for (let i = 1; i < rotations; i += 1) token = await rotate(token);
    }),
  );
  const afterRotations = await bytesOf(admin, layout);
  return {
    families: codes.length,
    rotations,
    afterRedemption: (afterRedemption.kept + afterRedemption.transient) / codes.length,
    afterFirstRotation: afterFirstRotation.kept / codes.length,
    afterRotations: afterRotations.kept / codes.length,
    transientAfterRotations: afterRotations.transient / codes.length,
  };
}
