import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/index.js';
import { loadOperatorDefaults } from '../../src/config/operator.js';
import { DIST, REPOSITORY } from '../../harness/process.js';
import { dockerfileInstructions } from '../helpers/dockerfile.js';

/**
 * What can be checked of the Dockerfile and docker-compose.yml without a Docker engine:
 * supported base images, the unprivileged user, that every file they copy or run exists
 * once built, and that compose starts Redis and the key rotation before the server.
 */

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

t.test('Dockerfile', async (t) => {
  const instructions = await dockerfileInstructions();
  const stages = instructions.filter((i) => i.keyword === 'FROM').map((i) => i.args);
  t.same(stages, ['node:24-slim AS build', 'node:24-slim AS runtime'], 'both stages on Node 24, the active LTS');
  const runtime = instructions.slice(instructions.findIndex((i) => i.args === 'node:24-slim AS runtime'));
  const workdir = runtime.find((i) => i.keyword === 'WORKDIR')?.args;
  t.equal(workdir, '/app');

  t.test('every COPY source exists: in the repository, or in dist/ after a build', async (t) => {
    const copies = instructions.filter((i) => i.keyword === 'COPY');
    t.ok(copies.length >= 4);
    const ignored = (await readFile(join(REPOSITORY, '.dockerignore'), 'utf8')).split('\n').filter(Boolean);
    for (const copy of copies) {
      const words = copy.args.split(' ');
      const fromStage = words[0]?.startsWith('--from=');
      const sources = words.filter((w) => !w.startsWith('--')).slice(0, -1);
      for (const source of sources) {
        const path = fromStage ? join(REPOSITORY, source.replace(/^\/app\//, '')) : join(REPOSITORY, source);
        t.ok(await exists(path), `COPY ${copy.args}: ${source} exists`);
        if (!fromStage) t.notOk(ignored.includes(source.split('/')[0] as string), `${source} is not in .dockerignore`);
      }
    }
  });

  t.test('the runtime stage: production dependencies, the CLI on PATH, USER node, a health check, CMD serve', async (t) => {
    const runs = runtime.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    t.ok(
      runs.some((r) => r.includes('npm ci --omit=dev --ignore-scripts')),
      'no devDependencies, no install scripts',
    );
    const link = runs.join(' ').match(/ln -s (\S+) \/usr\/local\/bin\/oauth2-token-service/);
    t.equal(link?.[1], '/app/dist/src/cli/index.js');
    t.ok(await exists(join(REPOSITORY, (link?.[1] ?? '').replace(/^\/app\//, ''))), 'the CLI it links exists in dist/');
    t.match(runs.join(' '), 'chmod 0755 dist/src/cli/index.js');

    const userAt = runtime.findIndex((i) => i.keyword === 'USER');
    t.equal(runtime[userAt]?.args, 'node');
    t.ok(userAt > runtime.findLastIndex((i) => i.keyword === 'RUN' || i.keyword === 'COPY'), 'USER node after the last RUN and COPY');
    t.match(runtime.find((i) => i.keyword === 'HEALTHCHECK')?.args, /\/healthz/);
    const cmd = JSON.parse(runtime.find((i) => i.keyword === 'CMD')?.args ?? '[]') as string[];
    t.same(cmd, ['oauth2-token-service', 'serve'], 'the command on PATH starts the server');
    t.ok(await exists(join(DIST, 'src', 'main.js')), 'what serve runs exists in dist/');
  });

  t.test('.dockerignore keeps keys, configuration, secrets, local builds and packed tarballs out of the context', async (t) => {
    const ignored = (await readFile(join(REPOSITORY, '.dockerignore'), 'utf8')).split('\n');
    for (const entry of ['keys', 'config', '.env', 'node_modules', 'dist', 'test', '.git', 'packages/*/dist', '.tests', '*.tgz', 'tmp'])
      t.ok(ignored.includes(entry), entry);
  });

  t.test('the runtime stage carries the license and the docs, as the tarball does', async (t) => {
    const copied = runtime
      .filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from='))
      .flatMap((i) => i.args.split(' ').slice(0, -1));
    for (const file of ['LICENSE', 'CHANGELOG.md', 'README.md', 'docs']) t.ok(copied.includes(file), file);
  });
});

interface ComposeService {
  image?: string;
  build?: string;
  command?: string[];
  entrypoint?: string[];
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  volumes?: string[];
  profiles?: string[];
  restart?: string;
  healthcheck?: { test: string[] };
}

/** Compose's `${NAME:-default}` and `${NAME:?message}`, resolved as compose would with `values`. */
const interpolated = (environment: Record<string, string>, values: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(environment).map(([name, value]) => [
      name,
      value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_all, variable: string, kind?: string, rest?: string) => {
        const given = values[variable];
        if (given !== undefined) return given;
        if (kind === '-') return rest ?? '';
        throw new Error(`${variable} is required: ${rest}`);
      }),
    ]),
  );

t.test('docker-compose.yml', async (t) => {
  const compose = parse(await readFile(join(REPOSITORY, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
    volumes: Record<string, unknown>;
  };
  const { redis, keys, oauth, admin } = compose.services;
  t.same(Object.keys(compose.services).sort(), ['admin', 'keys', 'oauth', 'redis']);
  t.same(Object.keys(compose.volumes).sort(), ['keys', 'redis-data']);

  t.test('Redis, with a health check the server waits for', async (t) => {
    t.match(redis?.image, /^redis:/);
    t.same(redis?.healthcheck?.test, ['CMD', 'redis-cli', 'ping']);
    t.same(oauth?.depends_on?.redis, { condition: 'service_healthy' });
    t.equal(interpolated(oauth?.environment ?? {}, { SESSION_SECRET: 'x' }).REDIS_URL, 'redis://redis:6379');
  });

  t.test('a one-shot key rotation into the shared volume, completed before the server starts', async (t) => {
    t.same(keys?.command, ['oauth2-token-service', 'keys', 'rotate']);
    t.equal(keys?.restart, 'no');
    t.same(keys?.volumes, ['keys:/keys']);
    t.equal(keys?.environment?.KEYS_DIR, '/keys');
    t.same(oauth?.depends_on?.keys, { condition: 'service_completed_successfully' });
    t.ok(oauth?.volumes?.includes('keys:/keys:ro'), 'the server reads the same volume, read-only');
    t.equal(oauth?.environment?.KEYS_DIR, '/keys');
    t.equal(
      loadOperatorDefaults(keys?.environment).accessTokenTtl,
      loadConfig(interpolated(oauth?.environment ?? {}, { SESSION_SECRET: 'x'.repeat(32) })).accessTokenTtl,
      'the rotation keeps keys published as long as the server issues tokens for',
    );
  });

  t.test(
    'the server: SESSION_SECRET required from the environment, a clients file, users only when set, a valid configuration',
    async (t) => {
      const environment = oauth?.environment ?? {};
      t.throws(() => interpolated(environment, {}), /SESSION_SECRET is required/, 'never a secret written in the file');
      const config = loadConfig(interpolated(environment, { SESSION_SECRET: 'y'.repeat(48) }));
      t.match(config, {
        clientsFile: '/config/clients.json',
        keysDir: '/keys',
        redis: { topology: { kind: 'standalone', url: 'redis://redis:6379' } },
        issuer: 'http://localhost:3000',
      });
      t.equal(config.usersFile, undefined, 'clients alone: no users file to miss');
      const withUsers = loadConfig(interpolated(environment, { SESSION_SECRET: 'y'.repeat(48), USERS_FILE: '/config/users.json' }));
      t.equal(withUsers.usersFile, '/config/users.json', 'USERS_FILE from .env');
      t.equal(config.trustProxy, false, 'no proxy unless TRUST_PROXY is set');
      const proxied = loadConfig(interpolated(environment, { SESSION_SECRET: 'y'.repeat(48), TRUST_PROXY: '10.0.0.0/8' }));
      t.same(proxied.trustProxy, ['10.0.0.0/8'], 'TRUST_PROXY from .env');
      t.ok(oauth?.volumes?.includes('./config:/config:ro'));
      t.same(
        [keys?.image, oauth?.image, admin?.image, keys?.build, oauth?.build],
        ['oauth2-token-service:local', 'oauth2-token-service:local', 'oauth2-token-service:local', '.', '.'],
        'one image, built from this repository',
      );
    },
  );

  t.test('an admin service runs the operator commands on the same files, on demand', async (t) => {
    t.same(admin?.profiles, ['admin'], 'not started by up');
    t.same(admin?.entrypoint, ['oauth2-token-service']);
    t.same(admin?.volumes, ['keys:/keys', './config:/config']);
    t.match(loadOperatorDefaults(admin?.environment), {
      keysDir: '/keys',
      clientsFile: '/config/clients.json',
      usersFile: '/config/users.json',
    });
  });
});
