import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import { tempDir } from './keys.js';

export interface TestCertificate {
  /** PEM private key: lives in a temporary folder removed when the test ends; never committed. */
  readonly key: string;
  /** PEM self-signed certificate: the trust anchor a test hands to the fetcher (`ca`) or to a process (NODE_EXTRA_CA_CERTS). */
  readonly cert: string;
  readonly certFile: string;
}

/** The names the test certificate is valid for. */
export const TEST_CERTIFICATE_NAMES = ['127.0.0.1', '::1', 'localhost', 'mcp-client.test', 'client.example'] as const;

/** A fresh self-signed P-256 certificate for TEST_CERTIFICATE_NAMES, made with openssl in a temporary folder. */
export async function selfSignedCertificate(t: Test): Promise<TestCertificate> {
  const dir = await tempDir(t, 'oauth-tls-');
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  const names = TEST_CERTIFICATE_NAMES.map((name) => (/^[\d.:]+$/.test(name) ? `IP:${name}` : `DNS:${name}`)).join(',');
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=oauth2-token-service test',
    '-addext',
    `subjectAltName=${names}`,
    '-keyout',
    keyFile,
    '-out',
    certFile,
  ]);
  return { key: await readFile(keyFile, 'utf8'), cert: await readFile(certFile, 'utf8'), certFile };
}
