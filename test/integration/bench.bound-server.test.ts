import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import t from 'tap';
import { boundTarget, startBound } from '../../bench/bounds-phase.js';
import { pregeneratedAssertions } from '../../bench/client-assertions.js';

/**
 * The bench's bound servers (bench/signing-server.ts through startBound): what they are
 * measured for must really happen, or (i) measures less work than it says: the verifying
 * one refuses an assertion that does not verify, and the one signing twice answers two tokens.
 */

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

async function post(url: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, { method: 'POST', headers: FORM, body });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const jwsParts = (value: unknown) => String(value).split('.').length;

t.test('the plain bound signs one ES256 token per request', async (t) => {
  const server = await startBound(t);
  const { status, json } = await post(boundTarget(server).url, 'grant_type=client_credentials&scope=read');
  t.equal(status, 200);
  t.equal(jwsParts(json.access_token), 3);
  t.equal(json.id_token, undefined);
  const header = JSON.parse(Buffer.from(String(json.access_token).split('.')[0]!, 'base64url').toString()) as { alg: string };
  t.equal(header.alg, 'ES256');
});

t.test('the verifying bound takes an assertion signed with its key and refuses any other', async (t) => {
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicKey = createPublicKey(keys.privateKey).export({ format: 'pem', type: 'spki' }).toString();
  const server = await startBound(t, { verifyWith: publicKey });
  const url = boundTarget(server).url;
  const signer = { clientId: 'c', issuer: 'http://localhost', kid: 'k' };
  const [good] = pregeneratedAssertions(1, { ...signer, key: keys.privateKey }) as [string];
  const [wrongKey] = pregeneratedAssertions(1, { ...signer, key: other.privateKey }) as [string];
  const body = (assertion: string) => `grant_type=client_credentials&scope=read&client_assertion=${assertion}`;
  const taken = await post(url, body(good));
  t.equal(taken.status, 200);
  t.equal(jwsParts(taken.json.access_token), 3);
  t.equal((await post(url, body(good))).status, 200, 'no replay cache: the bound verifies and nothing else');
  t.same(await post(url, body(wrongKey)), { status: 400, json: { error: 'invalid_client' } }, 'another key');
  const [input, signature] = [good.slice(0, good.lastIndexOf('.')), good.slice(good.lastIndexOf('.') + 1)];
  const flipped = `${input}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
  t.same(await post(url, body(flipped)), { status: 400, json: { error: 'invalid_client' } }, 'a changed signature');
  t.same(await post(url, 'grant_type=client_credentials&scope=read'), { status: 400, json: { error: 'invalid_client' } }, 'none');
  t.same(await post(url, body(`${input}.AAAA`)), { status: 400, json: { error: 'invalid_client' } }, 'a signature too short');
});

t.test('the bound signing twice answers an access token and an ID token, both signed', async (t) => {
  const server = await startBound(t, { twoSignatures: true });
  const { status, json } = await post(boundTarget(server).url, 'grant_type=client_credentials&scope=read');
  t.equal(status, 200);
  t.equal(jwsParts(json.access_token), 3);
  t.equal(jwsParts(json.id_token), 3);
  t.not(json.id_token, json.access_token, 'two signatures, not one answered twice');
});
