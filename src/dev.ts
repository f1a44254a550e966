import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { ClientRegistry } from './clients/registry.js';
import { demoCredentialsFile, writeDemoCredentials } from './dev-credentials.js';
import { generateClientSecret, hashClientSecret } from './clients/secret.js';
import { loadConfig } from './config/index.js';
import { applyThreadPoolSize } from './config/signing.js';
import { ensureSigningKey } from './keys/rotation.js';
import { ResourceRegistry } from './resources/registry.js';
import { startServer, stopOnSignals } from './server.js';
import { hashPassword } from './users/password.js';
import { UserRegistry } from './users/registry.js';

/**
 * The embedded default for newcomers: in-memory store unless REDIS_URL is set, signing
 * keys created in KEYS_DIR where a chain it needs has none that signs (ES256 for access
 * tokens, RS256 for ID tokens), (without CLIENTS_FILE) a demo client
 * with a fresh secret, printed once with ready curl lines, and (without USERS_FILE) a
 * demo user with a fresh password (both also written to .dev/demo.env, or .dev/demo-<port>.env on
 * another port than 3000, for a second shell), (without
 * RESOURCES_FILE) two demo resources: the
 * example resource server's API and the example MCP server, and (unless
 * DYNAMIC_CLIENT_REGISTRATION says otherwise) open dynamic client registration.
 */
const DEMO_REDIRECT_URI = 'http://localhost:8080/callback';
const DEMO_RESOURCE = 'http://localhost:4000/api';
/** The example MCP server's own URL (npm run example:mcp-server), and the scope its tools require. */
const DEMO_MCP_SERVER = 'http://localhost:4100/mcp';
const MCP_TOOLS_SCOPE = 'mcp:tools';
/** What the banner's admin line lists: the clients (the demo client among them). */
const ADMIN_BANNER_PATH = '/admin/v1/clients';
/**
 * Development only, unless the variables say otherwise: clients may register themselves (an MCP
 * client, a curl line), and only this computer reaches the server (production listens on 0.0.0.0).
 */
const DEV_DEFAULTS = { DYNAMIC_CLIENT_REGISTRATION: 'open', HOST: '127.0.0.1' };

try {
  const config = loadConfig(undefined, DEV_DEFAULTS);
  applyThreadPoolSize(config.threadPoolSize);
  await mkdir(config.keysDir, { recursive: true, mode: 0o700 });
  const created = await ensureSigningKey(config.keysDir, {
    accessTokenAlg: config.accessTokenSigningAlg,
    accessTokenTtl: config.accessTokenTtl,
  });
  for (const key of created) process.stdout.write(`created signing key ${key.kid} (${key.alg}) in ${config.keysDir}\n`);

  let clients: ClientRegistry | undefined;
  let secret: string | undefined;
  if (!config.clientsFile) {
    secret = generateClientSecret();
    clients = ClientRegistry.fromMetadata([
      {
        client_id: 'demo-client',
        client_name: 'Demo client',
        client_secret_hash: hashClientSecret(secret),
        grant_types: ['client_credentials', 'authorization_code', 'refresh_token'],
        redirect_uris: [DEMO_REDIRECT_URI],
        // Dev only: the admin API's scopes too, so one curl line reaches it (docs/admin-api.md).
        scope: `read write ${MCP_TOOLS_SCOPE} admin:read admin:write`,
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ]);
    process.stdout.write(
      `${[
        '',
        'Demo client (in memory; set CLIENTS_FILE to use your own):',
        '  client_id:     demo-client',
        `  client_secret: ${secret}`,
        '',
        'Get an access token:',
        `  curl -s -u 'demo-client:${secret}' -d grant_type=client_credentials -d scope=read ${config.issuer}/oauth2/token`,
        '',
        `Code flow: open ${config.issuer}/oauth2/authorize?response_type=code&client_id=demo-client&scope=read&state=xyz`,
        `  (it redirects to ${DEMO_REDIRECT_URI}?code=...; nothing listens there: copy the code from the address bar),`,
        '  or let "npm run -s demo:code-flow" sign in and allow for you (it prints CODE=... VERIFIER=...)',
        `  curl -s -u 'demo-client:${secret}' -d grant_type=authorization_code -d code=CODE ${config.issuer}/oauth2/token`,
        '',
        'Admin API (an admin token for the demo client, then a list):',
        `  ADMIN_TOKEN=$(curl -s -u 'demo-client:${secret}' -d grant_type=client_credentials -d resource=${config.issuer}/admin/v1 ${config.issuer}/oauth2/token | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')`,
        `  curl -s -H "Authorization: Bearer $ADMIN_TOKEN" '${config.issuer}${ADMIN_BANNER_PATH}'`,
        '',
        `Console: open ${config.issuer}/admin (sign in as the demo user); your apps: ${config.issuer}/account`,
        '',
      ].join('\n')}\n`,
    );
  }

  let users: UserRegistry | undefined;
  let password: string | undefined;
  if (!config.usersFile) {
    password = randomBytes(9).toString('base64url');
    // A profile, so userinfo and the consent page show what OpenID Connect's scopes share.
    const claims = { name: 'Demo User', email: 'demo@example.com', email_verified: true };
    // An admin: may be granted the admin API's scopes (docs/authorization.md#roles-and-the-admin-scopes).
    users = UserRegistry.fromEntries([{ username: 'demo', password_hash: await hashPassword(password), claims, roles: ['admin'] }]);
    process.stdout.write(`Demo user (in memory; set USERS_FILE to use your own): username demo, password ${password}, role admin\n\n`);
  }
  let resources: ResourceRegistry | undefined;
  if (!config.resourcesFile) {
    resources = ResourceRegistry.fromEntries([
      { resource: DEMO_RESOURCE, name: 'Demo API', scope: 'read write' },
      { resource: DEMO_MCP_SERVER, name: 'Example MCP server', scope: MCP_TOOLS_SCOPE },
    ]);
    process.stdout.write(
      `Demo resources (in memory; set RESOURCES_FILE to use your own): ${DEMO_RESOURCE}, scopes read write; ` +
        `${DEMO_MCP_SERVER} (npm run example:mcp-server), scope ${MCP_TOOLS_SCOPE}\n` +
        `  an access token for one: add -d resource=${DEMO_RESOURCE} to a token request\n\n`,
    );
  }
  if (config.dynamicClientRegistration !== 'off') {
    process.stdout.write(
      `Dynamic client registration: ${config.dynamicClientRegistration} at ${config.issuer}/oauth2/register (set DYNAMIC_CLIENT_REGISTRATION=off to turn it off)\n\n`,
    );
  }
  const sources = { ...(clients ? { clients: 'the demo client' } : {}), ...(users ? { users: 'the demo user' } : {}) };
  const server = await startServer(config, { clients, users, resources, sources });
  // Named by the port it listens on (PORT=0: the port it got), so a second dev server here never overwrites the first's.
  const credentialsFile = demoCredentialsFile(Number(new URL(server.address).port || config.port));
  try {
    await writeDemoCredentials(credentialsFile, { SECRET: secret, PASSWORD: password });
    if (secret || password) {
      process.stdout.write(
        `Demo credentials also in ${credentialsFile}: ". ${credentialsFile}" sets SECRET and PASSWORD in a shell in this folder\n`,
      );
    }
  } catch (err) {
    process.stderr.write(`warning: could not write ${credentialsFile} (${(err as Error).message}): copy the values printed above\n`);
  }
  stopOnSignals(server, (code) => process.exit(code));
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
}
