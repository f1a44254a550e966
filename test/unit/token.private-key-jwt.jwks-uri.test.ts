import { randomInt } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { ALICE, testUsers } from '../helpers/authorize-fixtures.js';
import { codeRequest, InjectBrowser, pkcePair, redirectParams, signInAndDecide } from '../helpers/browser-flow.js';
import { assertionParams, clientAssertion, type ClientKey, clientKey, jwksOf } from '../helpers/client-keys.js';
import { DocumentServer } from '../helpers/document-server.js';
import { capturedLogger } from '../helpers/logs.js';
import { clientMetadataDocument } from '../helpers/metadata-document-fixtures.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { JSON_HEADERS } from '../helpers/registration.js';
import { claimsOf, MCP, RESOURCES } from '../helpers/resource-fixtures.js';
import { buildTestServer, FORM_HEADERS, form, type TestServer } from '../helpers/server.js';
import { selfSignedCertificate, type TestCertificate } from '../helpers/tls.js';
import { FAILED } from '../helpers/private-key-jwt.js';

/**
 * private_key_jwt clients whose keys are at a jwks_uri: from CLIENTS_FILE, registered, and
 * described by a metadata document. The keys are served over HTTPS by a local server named
 * client.example (the injected resolver maps it to 127.0.0.1, which needs
 * CLIENT_ID_METADATA_ALLOW_INSECURE), and every fetch is counted.
 */

interface Setup {
  readonly server: TestServer;
  readonly keys: DocumentServer;
  readonly jwksUri: string;
  readonly token: (key: ClientKey, clientId: string, params?: Record<string, string>) => Promise<LightMyRequestResponse>;
  /** The reasons of the client.authentication_failed audit lines so far. */
  readonly refusals: () => unknown[];
}

async function setup(t: Test, certificate: TestCertificate, key: ClientKey): Promise<Setup> {
  const keys = await DocumentServer.start(t, certificate);
  keys.serveJson('/jwks.json', jwksOf(key), { 'cache-control': 'max-age=600' });
  const jwksUri = `https://client.example:${keys.port}/jwks.json`;
  const log = capturedLogger('info');
  const server = await buildTestServer(t, {
    logger: log.logger,
    env: {
      CLIENT_ID_METADATA_DOCUMENTS: 'true',
      CLIENT_ID_METADATA_ALLOW_INSECURE: 'true',
      // A stalled answer is given up soon.
      CLIENT_ID_METADATA_TIMEOUT_MS: '300',
      DYNAMIC_CLIENT_REGISTRATION: 'open',
      DYNAMIC_CLIENT_GRANTS: 'authorization_code,refresh_token,client_credentials',
    },
    clients: [
      {
        client_id: 'keyed',
        grant_types: ['client_credentials'],
        scope: 'read',
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: jwksUri,
      },
    ],
    users: testUsers(),
    resources: RESOURCES,
    outboundFetch: {
      ca: certificate.cert,
      resolve: async (hostname) => (hostname === 'client.example' ? [{ address: '127.0.0.1', family: 4 }] : []),
    },
  });
  const token = async (signer: ClientKey, clientId: string, params: Record<string, string> = { grant_type: 'client_credentials' }) =>
    server.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: FORM_HEADERS,
      payload: form({
        ...params,
        ...assertionParams(await clientAssertion(signer, clientId, { now: Math.floor(server.clock.now / 1000) })),
      }),
    });
  const refusals = () =>
    log
      .lines()
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.event === 'client.authentication_failed')
      .map((line) => line.reason);
  return { server, keys, jwksUri, token, refusals };
}

t.test('a CLIENTS_FILE client with a jwks_uri', async (t) => {
  const certificate = await selfSignedCertificate(t);
  const [key, rotated] = await Promise.all([clientKey('ES256', 'k1'), clientKey('RS256', 'k2')]);

  t.test('the keys are fetched once and kept for their max-age', async (t) => {
    const { server, keys, token } = await setup(t, certificate, key);
    for (let i = 0; i < 3; i += 1) t.equal((await token(key, 'keyed')).statusCode, 200);
    t.equal(keys.requestsFor('/jwks.json'), 1);
    await server.advance(600);
    t.equal((await token(key, 'keyed')).statusCode, 200);
    t.equal(keys.requestsFor('/jwks.json'), 2, 'past the max-age: fetched again');
  });

  t.test('a rotated key is found by one more fetch, at most once a minute whatever the kid', async (t) => {
    const { server, keys, token, refusals } = await setup(t, certificate, key);
    t.equal((await token(key, 'keyed')).statusCode, 200);
    keys.serveJson('/jwks.json', jwksOf(key, rotated), { 'cache-control': 'max-age=600' });
    for (let i = 0; i < 10; i += 1) expectOAuthError(t, await token(rotated, 'keyed'), FAILED);
    t.equal(keys.requestsFor('/jwks.json'), 1, 'fetched a second ago: not again');
    t.same(refusals(), Array(10).fill('unknown_kid'), 'audited: the key is not (yet) among the client keys');
    await server.advance(60);
    t.equal((await token(rotated, 'keyed')).statusCode, 200, 'a minute later: fetched again, the new key found');
    t.equal(keys.requestsFor('/jwks.json'), 2);
  });

  t.test('a jwks_uri that is down or not reachable: 401 invalid_client, never a 500', async (t) => {
    const { server, keys, token, refusals } = await setup(t, certificate, key);
    keys.serve('/jwks.json', { status: 500, body: 'oops' });
    expectOAuthError(t, await token(key, 'keyed'), FAILED);
    await server.advance(60);
    keys.serve('/jwks.json', { stallAfter: 0, headers: { 'content-type': 'application/json' }, body: '{}' });
    expectOAuthError(t, await token(key, 'keyed'), FAILED);
    t.equal(keys.requestsFor('/jwks.json'), 2, 'the remembered failure over: fetched again, and given up');
    t.same(refusals(), ['keys_unavailable', 'keys_unavailable'], 'audited: the keys could not be had');
  });
});

t.test('a registered client (RFC 7591) with a jwks_uri', async (t) => {
  const certificate = await selfSignedCertificate(t);
  const key = await clientKey('PS256', 'k1');
  const { server, jwksUri, token } = await setup(t, certificate, key);
  const registered = await server.app.inject({
    method: 'POST',
    url: '/oauth2/register',
    headers: JSON_HEADERS,
    payload: JSON.stringify({ grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks_uri: jwksUri }),
  });
  t.equal(registered.statusCode, 201);
  const { client_id: clientId, client_secret: secret } = registered.json() as { client_id: string; client_secret?: string };
  t.equal(secret, undefined, 'no secret');
  const res = await token(key, clientId);
  t.equal(res.statusCode, 200);
  t.match(claimsOf((res.json() as { access_token: string }).access_token), { sub: clientId, client_id: clientId });
});

t.test('a metadata-document client confidential by its keys: the code flow, redeemed with an assertion', async (t) => {
  const certificate = await selfSignedCertificate(t);
  const key = await clientKey('EdDSA', 'k1');
  const { server, keys, jwksUri, token } = await setup(t, certificate, key);
  const clientId = `https://client.example:${keys.port}/client.json`;
  const document = clientMetadataDocument(clientId, { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: jwksUri });
  keys.serveJson('/client.json', document, { 'cache-control': 'max-age=3600' });
  const { verifier, challenge } = pkcePair();
  const redirectUri = `http://127.0.0.1:${randomInt(1024, 65536)}/callback`;
  const params = codeRequest(clientId, redirectUri, challenge, 'tools');
  const newCode = async () => {
    const approved = await signInAndDecide(new InjectBrowser(server.app), params, ALICE, 'allow', [MCP]);
    return redirectParams(approved.headers.location as string).code as string;
  };
  const redeem = (code: string) => ({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    resource: MCP,
  });
  const anonymous = await server.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: FORM_HEADERS,
    payload: form({ ...redeem(await newCode()), client_id: clientId }),
  });
  expectOAuthError(t, anonymous, FAILED);
  const tokens = await token(key, clientId, redeem(await newCode()));
  t.equal(tokens.statusCode, 200);
  t.match(claimsOf((tokens.json() as { access_token: string }).access_token), { client_id: clientId, aud: MCP, sub: 'user-alice' });
  t.equal(keys.requestsFor('/jwks.json'), 1, 'its keys fetched once');
});
