import type { Test } from 'tap';
import { freePort } from '../../harness/ports.js';
import { buildServer } from '../../src/app.js';
import { ClientRegistry } from '../../src/clients/registry.js';
import { loadConfig } from '../../src/config/index.js';
import { Keystore } from '../../src/keys/keystore.js';
import { ResourceRegistry } from '../../src/resources/registry.js';
import { Signer } from '../../src/session/signer.js';
import { MemoryStore } from '../../src/store/memory.js';
import { consoleUsers, PHOTOS_RESOURCE } from './console.js';
import { keysDirWithSigningKey } from './keys.js';

/** A listening server for the console's browser tests: the console's people (consoleUsers), `clients`, the photos API, a memory store. */
export async function startConsoleServer(t: Test, options: { readonly sessionSecret: string; readonly clients: readonly object[] }) {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const keysDir = await keysDirWithSigningKey(t, { algs: ['ES256', 'RS256'] });
  const config = loadConfig({
    ISSUER: issuer,
    PORT: String(port),
    KEYS_DIR: keysDir,
    LOG_LEVEL: 'silent',
    SESSION_SECRET: options.sessionSecret,
  });
  const store = new MemoryStore(Date.now);
  const server = await buildServer(config, {
    keystore: await Keystore.open(keysDir, Math.floor(Date.now() / 1000), { accessTokenAlg: config.accessTokenSigningAlg }),
    clients: ClientRegistry.fromMetadata([...options.clients]),
    users: consoleUsers(),
    resources: ResourceRegistry.fromEntries([PHOTOS_RESOURCE]),
    store,
    signer: new Signer(options.sessionSecret),
    logger: false,
  });
  await server.listen({ port, host: '127.0.0.1' });
  t.teardown(async () => {
    await server.close();
    await store.close();
  });
  return { issuer };
}
