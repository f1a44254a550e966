import t from 'tap';
import type { GrantTypeName } from '../../src/clients/client.js';
import { loadConfig } from '../../src/config/index.js';
import { browserFlow, isProduction, productionProblems, sessionSecretProblem } from '../../src/config/production.js';

/**
 * What production refuses at start (src/config/production.ts): the exact line of each
 * refusal, every case that starts, and how production is recognized. The wiring (startServer,
 * the WORKERS primary, a reload of CLIENTS_FILE) is tested in server.start-failure.test.ts,
 * registries.reload.test.ts and test/e2e/production.refusals.test.ts.
 */

const SECRET = 'a-session-secret-of-at-least-32-characters';
const ISSUER = 'https://auth.example.com';
const client = (clientId: string, ...grants: GrantTypeName[]) => ({ clientId, grantTypes: new Set<GrantTypeName>(grants) });
const MACHINES = [client('reports', 'client_credentials'), client('exchanger', 'urn:ietf:params:oauth:grant-type:token-exchange')];

const NO_ISSUER =
  'ISSUER is not set: set it to the public https URL of this server (ISSUER=https://auth.example.com), the iss of every token and the base of every endpoint URL';
const secretLine = (why: string) =>
  `SESSION_SECRET is not set, and users sign in with a browser (${why}): set SESSION_SECRET="$(openssl rand -base64 48)", the same on every instance`;

t.test('isProduction: NODE_ENV=production, or the server inside node_modules (the installed package)', async (t) => {
  const checkout = '/home/dev/oauth2-token-service/dist/src/main.js';
  const installed = '/srv/oauth/node_modules/oauth2-token-service/dist/src/main.js';
  t.equal(isProduction(checkout, {}), false, 'a checkout, no NODE_ENV: development');
  t.equal(isProduction(checkout, { NODE_ENV: 'development' }), false);
  t.equal(isProduction(checkout, { NODE_ENV: 'production' }), true, 'NODE_ENV=production (the Docker image)');
  t.equal(isProduction(installed, {}), true, 'installed: production whatever NODE_ENV says');
  t.equal(isProduction(installed, { NODE_ENV: 'development' }), true);
  t.equal(isProduction('C:\\srv\\oauth\\node_modules\\oauth2-token-service\\dist\\src\\main.js', {}), true, 'Windows paths');
  t.equal(isProduction('/srv/my_node_modules_backup/dist/src/main.js', {}), false, 'only a folder named node_modules');
});

t.test('ISSUER: required, and https unless it names this computer', async (t) => {
  const problems = (env: Record<string, string>) => productionProblems(loadConfig(env), MACHINES);
  t.same(problems({}), [NO_ISSUER], 'unset: the development default http://localhost:3000 is refused');
  t.same(problems({ ISSUER: 'http://auth.example.com' }), [
    'ISSUER must use https in production (http only on localhost, 127.0.0.1 or [::1]): set ISSUER=https://auth.example.com, the URL clients reach (TLS may end at a proxy in front)',
  ]);
  t.same(problems({ ISSUER: 'http://10.0.0.5:8080/tenant/' }), [
    'ISSUER must use https in production (http only on localhost, 127.0.0.1 or [::1]): set ISSUER=https://10.0.0.5:8080/tenant, the URL clients reach (TLS may end at a proxy in front)',
  ]);
  for (const issuer of [
    'https://auth.example.com',
    'https://auth.example.com/tenant',
    'http://localhost:3000',
    'http://127.0.0.1:3000',
    'http://[::1]:3000',
  ])
    t.same(problems({ ISSUER: issuer }), [], `ISSUER=${issuer} starts`);
});

t.test('a browser flow: what needs SESSION_SECRET', async (t) => {
  const flow = (env: Record<string, string>, clients = MACHINES) => browserFlow(loadConfig(env), clients);
  t.equal(flow({}), undefined, 'client_credentials and token exchange only: none');
  t.equal(flow({}, []), undefined, 'no clients (USERS_FILE with the password grant alone opens none)');
  t.equal(flow({}, [client('legacy', 'password', 'refresh_token')]), undefined, 'the password grant is no browser flow');
  t.equal(flow({}, [...MACHINES, client('web', 'authorization_code')]), 'the client web of CLIENTS_FILE has the authorization_code grant');
  t.equal(flow({}, [client('old-spa', 'implicit')]), 'the client old-spa of CLIENTS_FILE has the implicit grant');
  t.equal(
    flow({ DYNAMIC_CLIENT_REGISTRATION: 'open' }),
    'DYNAMIC_CLIENT_REGISTRATION=open registers clients with the authorization_code grant',
  );
  t.equal(
    flow({ DYNAMIC_CLIENT_REGISTRATION: 'token', REGISTRATION_INITIAL_ACCESS_TOKENS: `sha256:${'a'.repeat(43)}` }),
    'DYNAMIC_CLIENT_REGISTRATION=token registers clients with the authorization_code grant',
  );
  t.equal(
    flow({ DYNAMIC_CLIENT_REGISTRATION: 'open', DYNAMIC_CLIENT_GRANTS: 'client_credentials' }),
    undefined,
    'registration of machines only',
  );
  t.equal(flow({ CLIENT_ID_METADATA_DOCUMENTS: 'true' }), 'CLIENT_ID_METADATA_DOCUMENTS=true');
  t.equal(
    flow({ IDENTITY_PROVIDERS_FILE: '/srv/oauth/providers.json' }),
    undefined,
    'providers alone: sign-in only happens inside a code flow',
  );
});

t.test('SESSION_SECRET: refused unset when browsers sign in, or when WORKERS share one key', async (t) => {
  const problems = (env: Record<string, string>, clients = MACHINES) => productionProblems(loadConfig({ ISSUER, ...env }), clients);
  t.same(problems({}), [], 'machines only: starts without it');
  t.same(problems({}, [client('web', 'authorization_code', 'refresh_token')]), [
    secretLine('the client web of CLIENTS_FILE has the authorization_code grant'),
  ]);
  t.same(problems({ SESSION_SECRET: SECRET }, [client('web', 'authorization_code')]), [], 'set: starts');
  t.same(problems({ CLIENT_ID_METADATA_DOCUMENTS: 'true' }), [secretLine('CLIENT_ID_METADATA_DOCUMENTS=true')]);
  const workers = { WORKERS: '4', REDIS_URL: 'redis://redis.internal:6379' };
  const workersLine =
    'SESSION_SECRET is not set, and WORKERS starts 4 processes that must share one key (sign-in sessions, signed forms, DPoP nonces): set SESSION_SECRET="$(openssl rand -base64 48)", the same on every instance';
  t.same(problems(workers, []), [workersLine], 'the WORKERS primary reads no clients: refused whatever they are');
  t.same(problems({ ...workers, CLIENT_ID_METADATA_DOCUMENTS: 'true' }, []), [workersLine], 'one line, not two');
  t.same(problems({ ...workers, SESSION_SECRET: SECRET }, []), []);
  t.equal(sessionSecretProblem(loadConfig({ SESSION_SECRET: SECRET }), [client('web', 'authorization_code')]), undefined);
});

t.test('every problem at once, one line each, in the order ISSUER, SESSION_SECRET', async (t) => {
  t.same(productionProblems(loadConfig({ DYNAMIC_CLIENT_REGISTRATION: 'open' }), []), [
    NO_ISSUER,
    secretLine('DYNAMIC_CLIENT_REGISTRATION=open registers clients with the authorization_code grant'),
  ]);
  t.same(productionProblems(loadConfig({ ISSUER: 'http://auth.example.com' }), [client('web', 'authorization_code')]), [
    'ISSUER must use https in production (http only on localhost, 127.0.0.1 or [::1]): set ISSUER=https://auth.example.com, the URL clients reach (TLS may end at a proxy in front)',
    secretLine('the client web of CLIENTS_FILE has the authorization_code grant'),
  ]);
});
