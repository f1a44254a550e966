import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { ADMIN_CLIENTS, ADMIN_SECRET, adminToken } from '../helpers/admin.js';
import { adminCalls } from '../helpers/admin-api.js';
import { capturedLogger } from '../helpers/logs.js';
import { WEB_CLIENT } from '../helpers/registration.js';
import { tokenRequest } from '../helpers/security-flows.js';
import { buildTestServer } from '../helpers/server.js';
import { storeContents } from '../helpers/store-contents.js';
import type { OpenStore } from '../helpers/stores.js';

/**
 * No secret after the answer that created it: a client's secrets (created, then a new one),
 * a provider's client secret and a user's passwords (created, then set), each with a known
 * value and each used once, are in no later answer, in no log line (captured at trace), and
 * nowhere in the store: every key and every value of the Redis keyspace (or every string the
 * memory store reaches).
 */

const PROVIDER_SECRET = 'provider-secret-c2VjcmV0LXByb3ZpZGVy';
const PASSWORDS = ['first-password-cGFzc3dvcmQx', 'second-password-cGFzc3dvcmQy'];

export function adminApiSecrets(t: Test, name: string, open: OpenStore): void {
  t.test(`${name}: no secret in any answer after creation, in any log line or in the store`, async (t) => {
    const logs = capturedLogger('trace');
    const testStore = await open(t);
    const legacy = { client_id: 'legacy', client_secret_hash: hashClientSecret(ADMIN_SECRET), grant_types: ['password'], scope: 'read' };
    const s = await buildTestServer(t, {
      store: testStore,
      clients: [...ADMIN_CLIENTS, legacy],
      providers: [],
      env: { ENTRIES_ENCRYPTION_KEY: 'entries-encryption-key-0123456789abcdef', DYNAMIC_CLIENT_REGISTRATION: 'open' },
      logger: logs.logger,
    });
    const api = adminCalls(s.app, await adminToken(s.app, 'operator'));
    const secrets: string[] = [PROVIDER_SECRET, ...PASSWORDS];

    const created = await api.post('/clients', { client_id: 'reporting', grant_types: ['client_credentials'], scope: 'read' });
    secrets.push(created.json().client_secret);
    const rotated = await api.post('/clients/reporting/secret');
    secrets.push(rotated.json().client_secret);
    t.equal((await tokenRequest(s.app, 'reporting', rotated.json().client_secret, { grant_type: 'client_credentials' })).statusCode, 200);
    const provider = { id: 'corp', type: 'github', name: 'Corp', client_id: 'ours', client_secret: PROVIDER_SECRET };
    t.equal((await api.post('/providers', provider)).statusCode, 201);
    t.equal((await api.post('/users', { username: 'carol', password: PASSWORDS[0] })).statusCode, 201);
    t.equal((await api.put('/users/carol/password', { password: PASSWORDS[1] })).statusCode, 204);
    const signIn = await tokenRequest(s.app, 'legacy', ADMIN_SECRET, {
      grant_type: 'password',
      username: 'carol',
      password: PASSWORDS[1] as string,
    });
    t.equal(signIn.statusCode, 200, 'the password set works');
    const registration = await s.app.inject({
      method: 'POST',
      url: '/oauth2/register',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(WEB_CLIENT),
    });
    t.equal(registration.statusCode, 201, `a dynamically registered client with a secret: ${registration.body}`);
    secrets.push(registration.json().client_secret, registration.json().registration_access_token);
    t.equal(secrets.length, 7);
    t.ok(secrets.every((secret) => typeof secret === 'string' && secret.length >= 20));

    const answers = await Promise.all(
      [
        '/clients',
        '/clients/reporting',
        `/clients/${registration.json().client_id}`,
        '/providers',
        '/providers/corp',
        '/users',
        '/users/carol',
        '/openapi.json',
      ].map((path) => api.get(path)),
    );
    t.same(
      answers.map((answer) => answer.statusCode),
      [200, 200, 200, 200, 200, 200, 200, 200],
    );
    for (const secret of secrets)
      t.notOk(
        answers.some((answer) => answer.body.includes(secret)),
        'no answer after creation carries it',
      );
    t.notOk(
      answers.some((answer) => /scrypt\$|sha256:|client_secret_sealed/.test(answer.body)),
      'nor its digest, its hash or its sealed form',
    );
    const text = logs.text();
    t.ok(logs.lines().length > 20, `${logs.lines().length} log lines at trace`);
    for (const secret of secrets) t.notOk(text.includes(secret), 'in no log line');
    const contents = await storeContents(testStore, { everyKey: true });
    t.ok(
      contents.some((line) => line.includes('{entries}') || line.includes('entries')),
      `${contents.length} lines of the store read`,
    );
    for (const secret of secrets)
      t.notOk(
        contents.some((line) => line.includes(secret)),
        'nowhere in the store',
      );
  });
}
