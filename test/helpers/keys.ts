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

/** A temporary keys folder holding one key that signs from `now` (seconds). */
export async function keysDirWithSigningKey(t: Test, options: { alg?: SigningAlgorithm; now?: number } = {}): Promise<string> {
  const dir = await tempDir(t, 'oauth-keys-');
  await rotateKeys(dir, { delay: 0, accessTokenTtl: 3600, ...options });
  return dir;
}

/**
 * Writes an ES256 key with the given kid and times (created and signing from `now` unless
 * `fields` say otherwise); a kid need not be a thumbprint to be listed or revoked.
 */
export async function writeKeyWith(dir: string, now: number, fields: Partial<KeyRecord> & { kid: string }): Promise<KeyRecord> {
  const generated = await generateKeyRecord('ES256', now, now);
  const record = { ...generated, ...fields, jwk: { ...generated.jwk, kid: fields.kid } };
  await writeKeyFile(dir, record);
  return record;
}
