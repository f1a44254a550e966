import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify, webcrypto } from 'node:crypto';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { BODY_LIMIT_BYTES, formRequest, useOAuthFormBodies } from '../src/http/form-body.js';
import type { FormParams } from '../src/oauth/form-params.js';
import { randomId } from '../src/tokens/random-id.js';

/**
 * bench/signing.ts's server: bare Fastify (as bench/bare-server.ts) that signs one ES256
 * token per POST /token, where $SIGN_MODE says:
 *   main        node:crypto sign() on the main thread (what the server does)
 *   threadpool  node:crypto sign() with a callback: the signature runs on libuv's thread pool
 *   webcrypto   crypto.subtle.sign(): also the thread pool (what node-oidc-provider does, via jose)
 * With $VERIFY_PUBLIC_KEY (a P-256 public key, SPKI PEM), each request must also carry a
 * `client_assertion` (an ES256 compact JWS) that the server verifies with that key on libuv's
 * thread pool before it signs, and nothing else: no decoding of its header or claims, no
 * replay cache. That is the bound of a grant adding one verification (bench/bounds-phase.ts);
 * an assertion that does not verify is answered 400.
 * With $SIGNATURES=2 it signs a second token per request (answered as `id_token`): the bound
 * of a grant adding one signature.
 * Listens on 127.0.0.1:$PORT; GET /healthz for readiness.
 */

type Signer = (input: Buffer) => Promise<Buffer> | Buffer;

const MODE = process.env.SIGN_MODE ?? 'main';
const HEADER = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'x'.repeat(43), typ: 'at+jwt' })).toString('base64url');
const signAsync = promisify(sign);
const verifyAsync = promisify(verify);

async function signerFor(mode: string, key: KeyObject): Promise<Signer> {
  const options = { key, dsaEncoding: 'ieee-p1363' as const };
  switch (mode) {
    case 'main':
      return (input) => sign('sha256', input, options);
    case 'threadpool':
      return (input) => signAsync('sha256', input, options);
    case 'webcrypto': {
      const jwk = key.export({ format: 'jwk' });
      const cryptoKey = await webcrypto.subtle.importKey('jwk', jwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
      // WebCrypto's ECDSA signature is already R || S (RFC 7518 §3.4).
      return async (input) => Buffer.from(await webcrypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, cryptoKey, input));
    }
    default:
      throw new Error(`SIGN_MODE must be main, threadpool or webcrypto, not ${mode}`);
  }
}

const key = createPrivateKey(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }));
const signInput = await signerFor(MODE, key);

async function token(): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  const claims = {
    iss: 'http://localhost:3000',
    sub: 'bench-client',
    aud: 'https://api.bench.example',
    scope: 'read',
    iat,
    exp: iat + 3600,
    jti: randomId(),
  };
  const input = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${(await signInput(Buffer.from(input))).toString('base64url')}`;
}

const secondSignature = process.env.SIGNATURES === '2';

const verifyingKey = process.env.VERIFY_PUBLIC_KEY ? createPublicKey(process.env.VERIFY_PUBLIC_KEY) : undefined;

/** The form's client_assertion verifies with verifyingKey (true when there is no such key). */
async function assertionVerifies(form: FormParams): Promise<boolean> {
  if (verifyingKey === undefined) return true;
  const jws = form.get('client_assertion') ?? '';
  const end = jws.lastIndexOf('.');
  if (end < 0) return false;
  const signature = Buffer.from(jws.slice(end + 1), 'base64url');
  // A signature of the wrong length makes node:crypto throw rather than answer false: refused all the same.
  return verifyAsync('sha256', Buffer.from(jws.slice(0, end)), { key: verifyingKey, dsaEncoding: 'ieee-p1363' }, signature).catch(
    () => false,
  );
}

const app = Fastify({ bodyLimit: BODY_LIMIT_BYTES });
app.get('/healthz', async () => ({ status: 'ok' }));
await app.register(async (scope) => {
  useOAuthFormBodies(scope, { realm: 'bench', storeOutage: 'server_error' });
  scope.post('/token', async (request, reply) => {
    const form = formRequest(request.body, request.url).body;
    if (!(await assertionVerifies(form))) return reply.code(400).send({ error: 'invalid_client' });
    const accessToken = await token();
    const idToken = secondSignature ? { id_token: await token() } : {};
    const body = JSON.stringify({ access_token: accessToken, token_type: 'Bearer', expires_in: 3600, ...idToken });
    return reply.header('content-type', 'application/json;charset=UTF-8').send(body);
  });
});

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
