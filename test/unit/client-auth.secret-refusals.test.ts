import t from 'tap';
import { WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { assertionParams } from '../helpers/client-keys.js';
import { metricsListener, scrape } from '../helpers/metrics.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { FAILED, keyedClientsServer, type Refusal, refusalEvent } from '../helpers/private-key-jwt.js';
import { basic } from '../helpers/server.js';
import { memoryStore } from '../helpers/stores.js';

/**
 * Refused secrets and client ids alone: the same 401 invalid_client, audited as
 * client.authentication_failed with the method (client_secret_basic, client_secret_post, or
 * none for an id alone) and which check failed, never the secret; and the counter of
 * refusals by method and reason. Assertions: client-auth.assertion-refusals.test.ts.
 */

const CC = { grant_type: 'client_credentials' };

t.test('secrets and client ids alone: each refusal, its method and reason', async (t) => {
  const { post, keys, sign, lines, audited } = await keyedClientsServer(t, memoryStore);
  const wrong = 'wrong-secret-0123456789abcdefghijklmnopqrstuvwxyz';
  const cases: [string, string, Record<string, string>, string | undefined, Refusal][] = [
    [
      'a wrong secret (Basic)',
      '/oauth2/token',
      CC,
      basic('secret-service', wrong),
      { method: 'client_secret_basic', reason: 'wrong_secret', clientId: 'secret-service' },
    ],
    [
      'a wrong secret (body)',
      '/oauth2/token',
      { ...CC, client_id: 'secret-service', client_secret: wrong },
      undefined,
      { method: 'client_secret_post', reason: 'wrong_secret', clientId: 'secret-service' },
    ],
    [
      'an unknown client with a secret',
      '/oauth2/token',
      CC,
      basic('nobody', wrong),
      { method: 'client_secret_basic', reason: 'unknown_client' },
    ],
    [
      'a private_key_jwt client with a secret',
      '/oauth2/token',
      CC,
      basic('keyed-service', WEB_SECRET),
      { method: 'client_secret_basic', reason: 'wrong_method', clientId: 'keyed-service' },
    ],
    [
      'a public client with a secret',
      '/oauth2/revoke',
      { token: 'x', client_id: 'spa', client_secret: WEB_SECRET },
      undefined,
      { method: 'client_secret_post', reason: 'wrong_method', clientId: 'spa' },
    ],
    [
      'a private_key_jwt client with its id alone',
      '/oauth2/token',
      { ...CC, client_id: 'keyed-service' },
      undefined,
      { method: 'none', reason: 'credentials_missing', clientId: 'keyed-service' },
    ],
    [
      'a client with a secret, Basic with an empty password',
      '/oauth2/token',
      CC,
      basic('secret-service', ''),
      { method: 'none', reason: 'credentials_missing', clientId: 'secret-service' },
    ],
    [
      'an unknown client id alone',
      '/oauth2/revoke',
      { token: 'x', client_id: 'nobody' },
      undefined,
      { method: 'none', reason: 'unknown_client' },
    ],
    [
      'a public client at the introspection endpoint',
      '/oauth2/introspect',
      { token: 'x', client_id: 'spa' },
      undefined,
      { method: 'none', reason: 'public_client', clientId: 'spa' },
    ],
  ];
  for (const [name, path, params, authorization, refusal] of cases) {
    t.test(name, async (t) => {
      const from = lines.length;
      expectOAuthError(t, await post(path, params, authorization), FAILED);
      t.same(audited(from), [refusalEvent(refusal)]);
      t.notOk(
        lines.slice(from).some((line) => line.includes(wrong) || line.includes(WEB_SECRET)),
        'no secret in the log',
      );
    });
  }

  t.test('no event for a request naming no client, a malformed one, or an accepted one', async (t) => {
    const from = lines.length;
    expectOAuthError(t, await post('/oauth2/token', CC), { ...FAILED, description: 'client authentication is required' });
    const both = {
      ...CC,
      client_id: 'secret-service',
      client_secret: WEB_SECRET,
      ...assertionParams(await sign(keys.service, 'keyed-service')),
    };
    expectOAuthError(t, await post('/oauth2/token', both), {
      status: 400,
      error: 'invalid_request',
      description: 'client authenticated with both client_secret and client_assertion',
    });
    t.equal((await post('/oauth2/token', CC, basic('secret-service', WEB_SECRET))).statusCode, 200);
    t.same(
      audited(from).filter((event) => event.event === 'client.authentication_failed'),
      [],
    );
  });
});

t.test('oauth2_client_authentication_failures_total counts refusals by method and reason', async (t) => {
  const { post, sign, keys, metrics } = await keyedClientsServer(t, memoryStore, { metrics: true });
  const listener = await metricsListener(t, metrics);
  const used = assertionParams(await sign(keys.service, 'keyed-service'));
  for (let i = 0; i < 3; i += 1) await post('/oauth2/token', { ...CC, ...used });
  await post('/oauth2/token', { ...CC, ...assertionParams(await sign(keys.service, 'keyed-service', { header: { kid: 'nope' } })) });
  await post('/oauth2/token', CC, basic('secret-service', 'nope'));
  const s = await scrape(listener);
  const failures = (method: string, reason: string) => s.value('oauth2_client_authentication_failures_total', { method, reason });
  t.equal(failures('private_key_jwt', 'replayed'), 2);
  t.equal(failures('private_key_jwt', 'unknown_kid'), 1);
  t.equal(failures('client_secret_basic', 'wrong_secret'), 1);
  t.equal(s.value('oauth2_token_errors_total', { error: 'invalid_client' }), 4);
  t.same(
    s.samples
      .filter((sample) => sample.name === 'oauth2_client_authentication_failures_total')
      .map((sample) => Object.keys(sample.labels).sort()),
    [
      ['method', 'reason'],
      ['method', 'reason'],
      ['method', 'reason'],
    ],
    'labels: method and reason only, never the client',
  );
});
