import { mkdir } from 'node:fs/promises';
import { ClientRegistry } from './clients/registry.js';
import { generateClientSecret, hashClientSecret } from './clients/secret.js';
import { loadConfig } from './config.js';
import { ensureSigningKey } from './keys/rotation.js';
import { startServer, stopOnSignals } from './server.js';

/**
 * The embedded default for newcomers: in-memory store unless REDIS_URL is set, a
 * signing key created in KEYS_DIR if it has none, and (without CLIENTS_FILE) a demo
 * client with a fresh secret, printed once with a ready curl line.
 */
try {
  const config = loadConfig();
  await mkdir(config.keysDir, { recursive: true, mode: 0o700 });
  const created = await ensureSigningKey(config.keysDir, { accessTokenTtl: config.accessTokenTtl });
  if (created) process.stdout.write(`created signing key ${created.kid} (${created.alg}) in ${config.keysDir}\n`);

  let clients: ClientRegistry | undefined;
  if (!config.clientsFile) {
    const secret = generateClientSecret();
    clients = ClientRegistry.fromMetadata([
      {
        client_id: 'demo-client',
        client_name: 'Demo client',
        client_secret_hash: hashClientSecret(secret),
        grant_types: ['client_credentials'],
        scope: 'read write',
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ]);
    process.stdout.write(
      [
        '',
        'Demo client (in memory; set CLIENTS_FILE to use your own):',
        '  client_id:     demo-client',
        `  client_secret: ${secret}`,
        '',
        'Get an access token:',
        `  curl -s -u 'demo-client:${secret}' -d grant_type=client_credentials -d scope=read ${config.issuer}/oauth2/token`,
        '',
      ].join('\n') + '\n',
    );
  }
  const server = await startServer(config, { clients });
  stopOnSignals(server, (code) => process.exit(code));
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
}
