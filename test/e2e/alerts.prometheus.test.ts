import { join } from 'node:path';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { codeRequest, pkcePair } from '../helpers/browser-flow.js';
import { approveOverHttp, postAsClient } from '../helpers/http-browser.js';
import { keysDirWithSigningKey } from '../helpers/keys.js';
import { cheapPasswordHash } from '../helpers/passwords.js';
import { RULES_DIR, startPrometheus, until } from '../helpers/prometheus.js';
import { registryFiles } from '../helpers/registries.js';
import { freePort } from '../../harness/ports.js';
import { startServerProcess } from '../../harness/process.js';

const SECRET = 'alerts-prometheus-secret-0123456789abcdefghijk';
const REDIRECT = 'https://app.example.com/callback';

interface Alert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: string;
}

/**
 * A real Prometheus (Debian's, /usr/bin/prometheus) scrapes a built server process (memory
 * store, METRICS_PORT) every second with the shipped deploy/prometheus/alerts.yml as its
 * rules; a replayed authorization code fires AuthorizationCodeReplay within seconds.
 */
t.setTimeout(90_000);

t.test('Prometheus with deploy/prometheus/alerts.yml: a replayed code fires AuthorizationCodeReplay', async (t) => {
  const { clientsFile, usersFile } = await registryFiles(
    t,
    [
      {
        client_id: 'web',
        client_secret_hash: hashClientSecret(SECRET),
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code'],
        scope: 'read',
      },
    ],
    [{ username: 'alice', password_hash: cheapPasswordHash('alice-password-1') }],
  );
  const [port, metricsPort] = [await freePort(), await freePort()];
  const server = await startServerProcess(t, {
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    ISSUER: `http://127.0.0.1:${port}`,
    KEYS_DIR: await keysDirWithSigningKey(t),
    CLIENTS_FILE: clientsFile,
    USERS_FILE: usersFile,
    SESSION_SECRET: 'alerts-session-secret-0123456789abcdef',
  });
  const rulesFile = join(RULES_DIR, 'alerts.yml');
  const prometheus = await startPrometheus(t, [`127.0.0.1:${metricsPort}`], [rulesFile]);
  const instance = `127.0.0.1:${metricsPort}`;

  const { groups } = await prometheus.api<{ groups: { file: string; rules: unknown[] }[] }>('/api/v1/rules');
  t.same(
    groups.map((g) => g.file),
    [rulesFile],
    'the shipped file, not a copy',
  );
  // increase() needs a sample before the replay: the counter at 0, scraped.
  const replays = () =>
    prometheus.api<{ result: { value: [number, string] }[] }>('/api/v1/query?query=oauth2_authorization_code_replays_total');
  await until(async () => (await replays()).result[0]?.value[1] === '0', 'the first scrape');

  const { verifier, challenge } = pkcePair();
  const location = await approveOverHttp(server.baseUrl, codeRequest('web', REDIRECT, challenge), {
    username: 'alice',
    password: 'alice-password-1',
  });
  const code = new URL(location).searchParams.get('code') as string;
  const redeem = () =>
    postAsClient(
      `${server.baseUrl}/oauth2/token`,
      { id: 'web', secret: SECRET },
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      },
    );
  t.equal((await redeem()).status, 200, 'the code, redeemed');
  t.same(await redeem(), {
    status: 400,
    body: { error: 'invalid_grant', error_description: 'the authorization code was already used; the tokens issued from it are revoked' },
  });

  let alerts: Alert[] = [];
  await until(async () => {
    alerts = (await prometheus.api<{ alerts: Alert[] }>('/api/v1/alerts')).alerts;
    return alerts.some((a) => a.labels.alertname === 'AuthorizationCodeReplay' && a.state === 'firing');
  }, 'AuthorizationCodeReplay to fire');
  t.same(
    alerts.map((a) => ({ state: a.state, labels: a.labels, summary: a.annotations.summary })),
    [
      {
        state: 'firing',
        labels: { alertname: 'AuthorizationCodeReplay', severity: 'warning', job: 'oauth2-token-service', instance },
        summary: `An authorization code was redeemed twice at ${instance}`,
      },
    ],
    'one alert, firing: the replay',
  );
  t.equal((await replays()).result[0]?.value[1], '1');
});
