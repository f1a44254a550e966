import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { generateKeyRecord, type KeyRecord, type SigningAlgorithm, writeKeyFile } from '../../src/keys/key-file.js';
import { rotateKeys } from '../../src/keys/rotation.js';

/** A temporary keys folder, removed when the test ends. */
export async function tempDir(t: Test, prefix = 'oauth-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A temporary keys folder holding one chain with one key that signs from `now` (seconds):
 * ES256 unless `alg` says otherwise; `algs`: one such chain per algorithm (an RSA key
 * costs tens of milliseconds to generate, so only the tests that need RS256 ask for it).
 */
export async function keysDirWithSigningKey(
  t: Test,
  options: { alg?: SigningAlgorithm; algs?: readonly SigningAlgorithm[]; now?: number } = {},
): Promise<string> {
  const dir = await tempDir(t, 'oauth-keys-');
  for (const alg of options.algs ?? [options.alg ?? 'ES256']) {
    await rotateKeys(dir, { alg, delay: 0, accessTokenTtl: 3600, ...(options.now !== undefined ? { now: options.now } : {}) });
  }
  return dir;
}

/**
 * Writes a key (ES256 unless `fields.alg` says otherwise) with the given kid and times
 * (created and signing from `now` unless `fields` say otherwise); a kid need not be a
 * thumbprint to be listed or revoked.
 */
export async function writeKeyWith(dir: string, now: number, fields: Partial<KeyRecord> & { kid: string }): Promise<KeyRecord> {
  const generated = await generateKeyRecord(fields.alg ?? 'ES256', now, now);
  const record = { ...generated, ...fields, jwk: { ...generated.jwk, kid: fields.kid } };
  await writeKeyFile(dir, record);
  return record;
}
