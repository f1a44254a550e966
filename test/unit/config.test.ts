import { availableParallelism } from 'node:os';
import t from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { EnvSchema } from '../../src/config/environment.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { defaultThreadPoolSize, signingConfig } from '../../src/config/signing.js';
import { loadOperatorDefaults } from '../../src/config/operator.js';

/** The problems loadConfig reports for `env`, one line each; none when it loads. */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    return (err as ConfigError).problems;
  }
}

t.test('loadConfig', async (t) => {
  t.test('defaults', async (t) => {
    t.same(loadConfig({}), {
      port: 3000,
      host: '0.0.0.0',
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      issuer: 'http://localhost:3000',
      issuerConfigured: false,
      redis: undefined,
      redisKeyPrefix: 'oauth:',
      redisCommandTimeoutMs: 1000,
      keysDir: './keys',
      keysReloadInterval: 60,
      jwksCacheTtl: 300,
      clientsFile: undefined,
      usersFile: undefined,
      resourcesFile: undefined,
      accessTokenTtl: 3600,
      idTokenTtl: 3600,
      accessTokenAudience: 'http://localhost:3000',
      logLevel: 'info',
      trustProxy: false,
      ipv6LimitPrefix: 64,
      authorizationCodeTtl: 60,
      codeResponseMode: 'query',
      refreshTokenTtl: 2_592_000,
      refreshTokenIdleTtl: 1_209_600,
      refreshReuseGrace: 10,
      sessionSecret: undefined,
      sessionTtl: 3600,
      consentTtl: 7_776_000,
      loginMaxFailures: 5,
      loginMaxFailuresPerIp: 20,
      loginFailureWindow: 900,
      passwordVerifyConcurrency: 4,
      passwordVerifyQueue: 8,
      httpRequestTimeout: 30,
      shutdownTimeout: 10,
      workers: 1,
      clientAssertionStrictAudience: false,
      clientIdMetadata: { enabled: false, allowInsecure: false, minTtl: 60, maxTtl: 86_400, timeoutMs: 5000, maxBytes: 5120 },
      dynamicClientRegistration: 'off',
      registrationInitialAccessTokens: [],
      dynamicClientGrants: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      dynamicClientTtl: 2_592_000,
      registrationRateLimit: 20,
      registrationRateWindow: 3600,
      dpop: { requireNonce: false, proofWindowSeconds: 60, algorithms: ['ES256', 'EdDSA', 'RS256', 'PS256'] },
      device: { codeTtlSeconds: 600, userCodeMaxFailures: 10 },
      brand: { name: undefined, logoUrl: undefined, primaryColor: '#0b57d0' },
      identityProviders: { file: undefined, allowInsecure: false, upstreamTokenSecret: undefined },
      workloadTrusts: { file: undefined, allowInsecure: false },
      entries: { syncIntervalSeconds: 2, encryptionKey: undefined },
      // auto: the thread pool while a CPU is left over beside WORKERS=1.
      accessTokenSigning: availableParallelism() > 1 ? 'thread-pool' : 'main-thread',
      // A thread per CPU left beside the event loop, 1 to 4.
      threadPoolSize: Math.max(1, Math.min(4, availableParallelism() - 1)),
    });
    t.equal(loadConfig({ PORT: '8080' }).issuer, 'http://localhost:8080', 'the default issuer follows PORT');
    t.ok(Object.isFrozen(loadConfig({})));
  });

  t.test('values from the environment', async (t) => {
    const config = loadConfig({
      ISSUER: 'https://auth.example.com/',
      REDIS_URL: 'redis://cache:6379/2',
      ACCESS_TOKEN_TTL: '600',
      ACCESS_TOKEN_AUDIENCE: 'https://api.example.com',
      LOG_LEVEL: 'warn',
      TRUST_PROXY: '1',
      HTTP_REQUEST_TIMEOUT: '5',
      SHUTDOWN_TIMEOUT: '0',
      RESOURCES_FILE: '/etc/oauth/resources.json',
      PORT: '',
    });
    t.equal(config.issuer, 'https://auth.example.com', 'trailing slash dropped');
    t.equal(config.issuerConfigured, true);
    t.same(config.redis, {
      topology: { kind: 'standalone', url: 'redis://cache:6379/2' },
      tls: false,
      username: undefined,
      password: undefined,
      replicaAck: { minReplicas: 0, timeoutMs: 500 },
    });
    t.equal(config.accessTokenTtl, 600);
    t.equal(config.accessTokenAudience, 'https://api.example.com');
    t.equal(config.logLevel, 'warn');
    t.equal(config.trustProxy, 1);
    t.equal(config.httpRequestTimeout, 5);
    t.equal(config.shutdownTimeout, 0, 'SHUTDOWN_TIMEOUT=0 closes every connection at once');
    t.equal(config.resourcesFile, '/etc/oauth/resources.json');
    t.equal(config.port, 3000, 'an empty variable counts as unset');
  });

  t.test('CONSENT_TTL: how long consent is remembered, 90 days by default, 0 for never, at most a year', async (t) => {
    t.equal(loadConfig({}).consentTtl, 7_776_000);
    t.equal(loadConfig({ CONSENT_TTL: '0' }).consentTtl, 0);
    t.equal(loadConfig({ CONSENT_TTL: '31536000' }).consentTtl, 31_536_000);
    for (const [value, problem] of [
      ['31536001', 'CONSENT_TTL must be at most 31536000 seconds'],
      ['-1', 'CONSENT_TTL must be a whole number of seconds'],
      ['90d', 'CONSENT_TTL must be a whole number of seconds'],
    ] as const) {
      let problems: readonly string[] = [];
      try {
        loadConfig({ CONSENT_TTL: value });
      } catch (err) {
        problems = (err as ConfigError).problems;
      }
      t.same(problems, [problem], value);
    }
  });

  t.test('DEVICE_CODE_TTL and DEVICE_USER_CODE_MAX_FAILURES: the device flow (RFC 8628), 600 s and 10 a minute by default', async (t) => {
    t.same(loadConfig({ DEVICE_CODE_TTL: '60', DEVICE_USER_CODE_MAX_FAILURES: '1' }).device, {
      codeTtlSeconds: 60,
      userCodeMaxFailures: 1,
    });
    t.same(loadConfig({ DEVICE_CODE_TTL: '1800', DEVICE_USER_CODE_MAX_FAILURES: '10000' }).device, {
      codeTtlSeconds: 1800,
      userCodeMaxFailures: 10_000,
    });
    t.same(problemsOf({ DEVICE_CODE_TTL: '59', DEVICE_USER_CODE_MAX_FAILURES: '0' }), [
      'DEVICE_CODE_TTL must be at least 60 seconds',
      'DEVICE_USER_CODE_MAX_FAILURES must be at least 1',
    ]);
    t.same(problemsOf({ DEVICE_CODE_TTL: '1801', DEVICE_USER_CODE_MAX_FAILURES: '10001' }), [
      'DEVICE_CODE_TTL must be at most 1800 seconds',
      'DEVICE_USER_CODE_MAX_FAILURES must be at most 10000',
    ]);
    t.same(problemsOf({ DEVICE_CODE_TTL: '10m' }), ['DEVICE_CODE_TTL must be a whole number of seconds']);
  });

  t.test('one line per problem, naming the variable', async (t) => {
    const attempt = () =>
      loadConfig({
        PORT: 'eighty',
        ISSUER: 'https://auth.example.com/?tenant=a#x',
        ACCESS_TOKEN_TTL: '0',
        LOG_LEVEL: 'loud',
        REDIS_URL: 'http://cache',
        AUTHORIZATION_CODE_TTL: '601',
        SESSION_SECRET: 'short',
        HTTP_REQUEST_TIMEOUT: '0',
        SHUTDOWN_TIMEOUT: 'soon',
      });
    t.throws(attempt, ConfigError);
    try {
      attempt();
    } catch (err) {
      t.same((err as ConfigError).problems, [
        'PORT must be a whole number',
        'ISSUER must not have a query',
        'ISSUER must not have a fragment',
        'REDIS_URL must start with redis:// or rediss://',
        'ACCESS_TOKEN_TTL must be at least 1 second',
        'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
        'AUTHORIZATION_CODE_TTL must be at most 600 seconds',
        'SESSION_SECRET must be at least 32 characters',
        'HTTP_REQUEST_TIMEOUT must be at least 1 second',
        'SHUTDOWN_TIMEOUT must be a whole number of seconds',
      ]);
    }
    t.same(problemsOf({ ISSUER: 'not a url' }), ['ISSUER must be an absolute URL']);
    t.same(problemsOf({ ISSUER: 'ftp://example.com' }), ['ISSUER must use https (or http for local development)']);
    t.same(problemsOf({ PASSWORD_VERIFY_CONCURRENCY: '0', PASSWORD_VERIFY_QUEUE: 'many' }), [
      'PASSWORD_VERIFY_CONCURRENCY must be at least 1',
      'PASSWORD_VERIFY_QUEUE must be a whole number',
    ]);
    t.match(loadConfig({ PASSWORD_VERIFY_CONCURRENCY: '2', PASSWORD_VERIFY_QUEUE: '0' }), {
      passwordVerifyConcurrency: 2,
      passwordVerifyQueue: 0,
    });
  });

  t.test("TRUST_PROXY: a number of proxy hops or the proxies' addresses and ranges; true is refused", async (t) => {
    t.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false, 'false: no proxy, as when unset');
    t.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    t.equal(loadConfig({ TRUST_PROXY: '32' }).trustProxy, 32);
    const listed = loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.10,fd00::/8 ,::1,::ffff:10.1.0.0/112' }).trustProxy;
    t.same(listed, ['10.0.0.0/8', '192.0.2.10', 'fd00::/8', '::1', '::ffff:10.1.0.0/112']);
    t.ok(Object.isFrozen(listed));
    t.same(problemsOf({ TRUST_PROXY: 'true' }), [
      'TRUST_PROXY=true would let a client choose its own address (X-Forwarded-For): set a number of proxy hops (1-32) or a comma-separated list of proxy addresses or CIDR ranges (e.g. 10.0.0.0/8,fd00::/8)',
    ]);
    for (const value of [
      '0',
      '33',
      'yes',
      '10.0.0.0/33',
      'fd00::/129',
      '0.0.0.0/0',
      '::/0',
      '10.0.0.1,',
      'proxy.internal',
      'loopback',
      '10.0.0.0/8/8',
      '10.0.0.0/0x8',
    ]) {
      t.same(
        problemsOf({ TRUST_PROXY: value }),
        [
          'TRUST_PROXY must be a number of proxy hops (1-32) or a comma-separated list of proxy addresses or CIDR ranges (e.g. 10.0.0.0/8,fd00::/8)',
        ],
        `TRUST_PROXY=${value}`,
      );
    }
  });

  t.test('IPV6_LIMIT_PREFIX: the network an IPv6 client counts by in per-address limits, /64 by default', async (t) => {
    t.equal(loadConfig({ IPV6_LIMIT_PREFIX: '48' }).ipv6LimitPrefix, 48);
    t.equal(loadConfig({ IPV6_LIMIT_PREFIX: '128' }).ipv6LimitPrefix, 128);
    t.same(problemsOf({ IPV6_LIMIT_PREFIX: '31' }), ['IPV6_LIMIT_PREFIX must be at least 32']);
    t.same(problemsOf({ IPV6_LIMIT_PREFIX: '129' }), ['IPV6_LIMIT_PREFIX must be at most 128']);
    t.same(problemsOf({ IPV6_LIMIT_PREFIX: '/64' }), ['IPV6_LIMIT_PREFIX must be a whole number']);
  });

  t.test('HOST: every interface by default; METRICS_HOST: this computer only, unless set', async (t) => {
    t.match(loadConfig({}), { host: '0.0.0.0', metricsHost: '127.0.0.1' });
    t.match(loadConfig({}, { HOST: '127.0.0.1' }), { host: '127.0.0.1' }, "the dev entry's default");
    t.match(loadConfig({ HOST: '::', METRICS_HOST: '10.0.0.5' }, { HOST: '127.0.0.1' }), { host: '::', metricsHost: '10.0.0.5' });
  });

  t.test('every duration and size says its unit when refused', async (t) => {
    const units: Record<string, string> = {};
    for (const name of Object.keys(EnvSchema.shape)) {
      const [problem] = problemsOf({ [name]: 'soon' });
      const unit = / must be a whole number(?: of (\w+))?$/.exec(problem ?? '');
      if (unit) units[name] = unit[1] ?? '(none)';
    }
    // Ports, prefixes and counts have none; everything that names a time or a size does.
    t.same(
      Object.entries(units)
        .filter(([name]) => /_(TTL|TIMEOUT|WINDOW|INTERVAL|GRACE|MS|BYTES)$/.test(name) && units[name] === '(none)')
        .map(([name]) => name),
      [],
    );
    t.same(units, {
      PORT: '(none)',
      METRICS_PORT: '(none)',
      KEYS_RELOAD_INTERVAL: 'seconds',
      JWKS_CACHE_TTL: 'seconds',
      ACCESS_TOKEN_TTL: 'seconds',
      ID_TOKEN_TTL: 'seconds',
      AUTHORIZATION_CODE_TTL: 'seconds',
      REFRESH_TOKEN_TTL: 'seconds',
      REFRESH_TOKEN_IDLE_TTL: 'seconds',
      REFRESH_REUSE_GRACE: 'seconds',
      SESSION_TTL: 'seconds',
      CONSENT_TTL: 'seconds',
      LOGIN_MAX_FAILURES: '(none)',
      LOGIN_MAX_FAILURES_PER_IP: '(none)',
      LOGIN_FAILURE_WINDOW: 'seconds',
      PASSWORD_VERIFY_CONCURRENCY: '(none)',
      PASSWORD_VERIFY_QUEUE: '(none)',
      HTTP_REQUEST_TIMEOUT: 'seconds',
      SHUTDOWN_TIMEOUT: 'seconds',
      CLIENT_ID_METADATA_MIN_TTL: 'seconds',
      CLIENT_ID_METADATA_MAX_TTL: 'seconds',
      CLIENT_ID_METADATA_TIMEOUT_MS: 'milliseconds',
      CLIENT_ID_METADATA_MAX_BYTES: 'bytes',
      REDIS_COMMAND_TIMEOUT_MS: 'milliseconds',
      REDIS_MIN_REPLICAS_ACK: '(none)',
      REDIS_REPLICAS_ACK_TIMEOUT_MS: 'milliseconds',
      IPV6_LIMIT_PREFIX: '(none)',
      DYNAMIC_CLIENT_TTL: 'seconds',
      REGISTRATION_RATE_LIMIT: '(none)',
      REGISTRATION_RATE_WINDOW: 'seconds',
      DPOP_PROOF_WINDOW: 'seconds',
      DEVICE_CODE_TTL: 'seconds',
      DEVICE_USER_CODE_MAX_FAILURES: '(none)',
      UV_THREADPOOL_SIZE: '(none)',
      ENTRIES_SYNC_INTERVAL: 'seconds',
    });
    t.same(problemsOf({ ACCESS_TOKEN_TTL: '0', CLIENT_ID_METADATA_TIMEOUT_MS: '99', CLIENT_ID_METADATA_MAX_BYTES: '2000000' }), [
      'ACCESS_TOKEN_TTL must be at least 1 second',
      'CLIENT_ID_METADATA_TIMEOUT_MS must be at least 100 milliseconds',
      'CLIENT_ID_METADATA_MAX_BYTES must be at most 1048576 bytes',
    ]);
    t.same(problemsOf({ ID_TOKEN_TTL: '59', REDIS_REPLICAS_ACK_TIMEOUT_MS: '0' }), [
      'REDIS_REPLICAS_ACK_TIMEOUT_MS must be at least 1 millisecond',
      'ID_TOKEN_TTL must be at least 60 seconds',
    ]);
  });

  t.test('METRICS_PORT: off unless set; a port of its own, or PORT itself when equal', async (t) => {
    t.equal(loadConfig({}).metricsPort, undefined, 'no metrics by default');
    t.equal(loadConfig({ METRICS_PORT: '' }).metricsPort, undefined, 'blank is unset');
    t.match(loadConfig({ METRICS_PORT: '9464' }), { port: 3000, metricsPort: 9464 });
    t.match(loadConfig({ PORT: '8080', METRICS_PORT: '8080' }), { port: 8080, metricsPort: 8080 });
    for (const [value, message] of [
      ['0', 'METRICS_PORT must be at least 1'],
      ['65536', 'METRICS_PORT must be at most 65535'],
      ['metrics', 'METRICS_PORT must be a whole number'],
    ] as const) {
      t.same(problemsOf({ METRICS_PORT: value }), [message]);
    }
  });

  t.test('branding of the pages: BRAND_NAME, BRAND_LOGO_URL, BRAND_PRIMARY_COLOR', async (t) => {
    t.same(
      loadConfig({ BRAND_NAME: 'Example Corp', BRAND_LOGO_URL: 'https://cdn.example.com/logo.svg', BRAND_PRIMARY_COLOR: '#1A7F37' }).brand,
      { name: 'Example Corp', logoUrl: 'https://cdn.example.com/logo.svg', primaryColor: '#1a7f37' },
    );
    t.equal(loadConfig({ BRAND_PRIMARY_COLOR: '#F0a' }).brand.primaryColor, '#ff00aa', '#rgb is written out in lowercase');
    for (const local of ['http://localhost:8080/logo.png', 'http://127.0.0.1/logo.svg', 'http://[::1]:3000/l.png'])
      t.equal(loadConfig({ BRAND_LOGO_URL: local }).brand.logoUrl, local, 'http on this computer, for development');
    const logo = 'BRAND_LOGO_URL must be an absolute https URL (http only on localhost, for development)';
    const color = 'BRAND_PRIMARY_COLOR must be a hex color: #rgb or #rrggbb';
    t.same(problemsOf({ BRAND_LOGO_URL: 'http://cdn.example.com/logo.svg' }), [logo]);
    t.same(problemsOf({ BRAND_LOGO_URL: '/logo.svg' }), [logo]);
    t.same(problemsOf({ BRAND_LOGO_URL: 'javascript:alert(1)' }), [logo]);
    t.same(problemsOf({ BRAND_LOGO_URL: 'https://user:pw@cdn.example.com/logo.svg' }), [logo]);
    t.same(problemsOf({ BRAND_PRIMARY_COLOR: 'red' }), [color]);
    t.same(problemsOf({ BRAND_PRIMARY_COLOR: '#12345' }), [color]);
    t.same(problemsOf({ BRAND_PRIMARY_COLOR: '#0b57d0;}body{display:none' }), [color], 'nothing but a colour reaches the style');
    t.same(problemsOf({ BRAND_NAME: 'x'.repeat(101) }), ['BRAND_NAME must be at most 100 characters']);
    t.same(problemsOf({ BRAND_NAME: 'Bad\nName' }), ['BRAND_NAME must not contain control characters']);
    t.ok(Object.isFrozen(loadConfig({}).brand));
  });

  t.test('upstream identity providers', async (t) => {
    const config = loadConfig({
      IDENTITY_PROVIDERS_FILE: '/etc/oauth/providers.json',
      IDENTITY_PROVIDERS_ALLOW_INSECURE: 'true',
      UPSTREAM_TOKEN_SECRET: 'u'.repeat(32),
    });
    t.same(config.identityProviders, { file: '/etc/oauth/providers.json', allowInsecure: true, upstreamTokenSecret: 'u'.repeat(32) });
    t.ok(Object.isFrozen(config.identityProviders));
    t.same(problemsOf({ IDENTITY_PROVIDERS_ALLOW_INSECURE: 'yes', UPSTREAM_TOKEN_SECRET: 'short' }), [
      'IDENTITY_PROVIDERS_ALLOW_INSECURE must be true or false',
      'UPSTREAM_TOKEN_SECRET must be at least 32 characters',
    ]);
  });

  t.test('workload identity federation: WORKLOAD_TRUSTS_FILE and WORKLOAD_TRUSTS_ALLOW_INSECURE', async (t) => {
    t.same(loadConfig({}).workloadTrusts, { file: undefined, allowInsecure: false });
    const config = loadConfig({ WORKLOAD_TRUSTS_FILE: '/etc/oauth/trusts.json', WORKLOAD_TRUSTS_ALLOW_INSECURE: 'true' });
    t.same(config.workloadTrusts, { file: '/etc/oauth/trusts.json', allowInsecure: true });
    t.ok(Object.isFrozen(config.workloadTrusts));
    t.same(problemsOf({ WORKLOAD_TRUSTS_ALLOW_INSECURE: 'yes' }), ['WORKLOAD_TRUSTS_ALLOW_INSECURE must be true or false']);
  });

  t.test('entries of the admin API: ENTRIES_SYNC_INTERVAL and ENTRIES_ENCRYPTION_KEY', async (t) => {
    t.same(loadConfig({}).entries, { syncIntervalSeconds: 2, encryptionKey: undefined }, 'a check every 2 s; no key');
    const config = loadConfig({ ENTRIES_SYNC_INTERVAL: '10', ENTRIES_ENCRYPTION_KEY: 'k'.repeat(32) });
    t.same(config.entries, { syncIntervalSeconds: 10, encryptionKey: 'k'.repeat(32) });
    t.ok(Object.isFrozen(config.entries));
    t.same(problemsOf({ ENTRIES_SYNC_INTERVAL: '0' }), ['ENTRIES_SYNC_INTERVAL must be at least 1 second']);
    t.same(problemsOf({ ENTRIES_SYNC_INTERVAL: '3601' }), ['ENTRIES_SYNC_INTERVAL must be at most 3600 seconds']);
    t.same(problemsOf({ ENTRIES_SYNC_INTERVAL: '1.5' }), ['ENTRIES_SYNC_INTERVAL must be a whole number of seconds']);
    t.same(problemsOf({ ENTRIES_ENCRYPTION_KEY: 'short' }), ['ENTRIES_ENCRYPTION_KEY must be at least 32 characters']);
  });

  t.test('CLIENT_ASSERTION_STRICT_AUDIENCE: private_key_jwt audiences (draft-ietf-oauth-rfc7523bis)', async (t) => {
    t.equal(loadConfig({}).clientAssertionStrictAudience, false, 'off by default: the token endpoint URL stays accepted');
    t.equal(loadConfig({ CLIENT_ASSERTION_STRICT_AUDIENCE: 'true' }).clientAssertionStrictAudience, true);
    t.equal(loadConfig({ CLIENT_ASSERTION_STRICT_AUDIENCE: 'false' }).clientAssertionStrictAudience, false);
    t.same(problemsOf({ CLIENT_ASSERTION_STRICT_AUDIENCE: 'yes' }), ['CLIENT_ASSERTION_STRICT_AUDIENCE must be true or false']);
  });

  t.test('Client ID Metadata Documents', async (t) => {
    const config = loadConfig({
      CLIENT_ID_METADATA_DOCUMENTS: 'true',
      CLIENT_ID_METADATA_ALLOW_INSECURE: 'true',
      CLIENT_ID_METADATA_MIN_TTL: '0',
      CLIENT_ID_METADATA_MAX_TTL: '3600',
      CLIENT_ID_METADATA_TIMEOUT_MS: '2500',
      CLIENT_ID_METADATA_MAX_BYTES: '8192',
    });
    t.same(config.clientIdMetadata, { enabled: true, allowInsecure: true, minTtl: 0, maxTtl: 3600, timeoutMs: 2500, maxBytes: 8192 });
    t.ok(Object.isFrozen(config.clientIdMetadata));
    t.same(
      problemsOf({
        CLIENT_ID_METADATA_DOCUMENTS: 'yes',
        CLIENT_ID_METADATA_ALLOW_INSECURE: '1',
        CLIENT_ID_METADATA_TIMEOUT_MS: '50',
        CLIENT_ID_METADATA_MAX_BYTES: '10000000',
      }),
      [
        'CLIENT_ID_METADATA_DOCUMENTS must be true or false',
        'CLIENT_ID_METADATA_ALLOW_INSECURE must be true or false',
        'CLIENT_ID_METADATA_TIMEOUT_MS must be at least 100 milliseconds',
        'CLIENT_ID_METADATA_MAX_BYTES must be at most 1048576 bytes',
      ],
    );
    t.same(problemsOf({ CLIENT_ID_METADATA_MIN_TTL: '600', CLIENT_ID_METADATA_MAX_TTL: '60' }), [
      'CLIENT_ID_METADATA_MIN_TTL must not be greater than CLIENT_ID_METADATA_MAX_TTL',
    ]);
    t.same(problemsOf({ CLIENT_ID_METADATA_DOCUMENTS: 'true', DYNAMIC_CLIENT_GRANTS: 'client_credentials' }), [
      'DYNAMIC_CLIENT_GRANTS must include authorization_code with CLIENT_ID_METADATA_DOCUMENTS=true: a metadata-document client uses the code flow',
    ]);
    t.equal(
      loadConfig({ DYNAMIC_CLIENT_GRANTS: 'client_credentials' }).dynamicClientGrants.join(),
      'client_credentials',
      'fine without documents',
    );
  });

  t.test('dynamic client registration (RFC 7591)', async (t) => {
    const digest = hashClientSecret('an-initial-access-token-0123456789abcdefghij');
    const other = hashClientSecret('another-initial-access-token-0123456789abcdef');
    t.match(
      loadConfig({
        DYNAMIC_CLIENT_REGISTRATION: 'token',
        REGISTRATION_INITIAL_ACCESS_TOKENS: `${digest}, ${other}`,
        DYNAMIC_CLIENT_GRANTS: 'authorization_code,refresh_token,client_credentials,refresh_token',
        DYNAMIC_CLIENT_TTL: '86400',
        REGISTRATION_RATE_LIMIT: '5',
        REGISTRATION_RATE_WINDOW: '60',
      }),
      {
        dynamicClientRegistration: 'token',
        registrationInitialAccessTokens: [digest, other],
        dynamicClientGrants: ['authorization_code', 'refresh_token', 'client_credentials'],
        dynamicClientTtl: 86_400,
        registrationRateLimit: 5,
        registrationRateWindow: 60,
      },
    );
    t.equal(loadConfig({ DYNAMIC_CLIENT_REGISTRATION: 'open' }).dynamicClientRegistration, 'open');
    t.equal(loadConfig({}, { DYNAMIC_CLIENT_REGISTRATION: 'open' }).dynamicClientRegistration, 'open', 'a default for an unset variable');
    t.equal(
      loadConfig({ DYNAMIC_CLIENT_REGISTRATION: 'off' }, { DYNAMIC_CLIENT_REGISTRATION: 'open' }).dynamicClientRegistration,
      'off',
      'the environment wins over a default',
    );
    t.same(problemsOf({ DYNAMIC_CLIENT_REGISTRATION: 'yes' }), ['DYNAMIC_CLIENT_REGISTRATION must be one of off, open, token']);
    t.same(problemsOf({ DYNAMIC_CLIENT_GRANTS: 'authorization_code,password' }), [
      'DYNAMIC_CLIENT_GRANTS: password is never allowed for dynamically registered clients (RFC 9700 section 2.4)',
    ]);
    t.same(problemsOf({ DYNAMIC_CLIENT_GRANTS: 'implicit' }), [
      'DYNAMIC_CLIENT_GRANTS: implicit is never allowed for dynamically registered clients (RFC 9700 section 2.1.2)',
    ]);
    t.same(problemsOf({ DYNAMIC_CLIENT_GRANTS: 'authorization_code,device_code' }), [
      'DYNAMIC_CLIENT_GRANTS must be a comma-separated list of authorization_code, refresh_token, client_credentials, urn:ietf:params:oauth:grant-type:device_code',
    ]);
    t.same(
      loadConfig({ DYNAMIC_CLIENT_GRANTS: 'urn:ietf:params:oauth:grant-type:device_code' }).dynamicClientGrants,
      ['urn:ietf:params:oauth:grant-type:device_code'],
      'a client registering itself may have only the device grant',
    );
    t.same(problemsOf({ DYNAMIC_CLIENT_TTL: '60', REGISTRATION_RATE_LIMIT: '0', REGISTRATION_RATE_WINDOW: 'hourly' }), [
      'DYNAMIC_CLIENT_TTL must be at least 3600 seconds',
      'REGISTRATION_RATE_LIMIT must be at least 1',
      'REGISTRATION_RATE_WINDOW must be a whole number of seconds',
    ]);
    t.same(problemsOf({ DYNAMIC_CLIENT_REGISTRATION: 'token' }), [
      'REGISTRATION_INITIAL_ACCESS_TOKENS: required with DYNAMIC_CLIENT_REGISTRATION=token',
    ]);
    t.same(problemsOf({ DYNAMIC_CLIENT_REGISTRATION: 'open', REGISTRATION_INITIAL_ACCESS_TOKENS: digest }), [
      'REGISTRATION_INITIAL_ACCESS_TOKENS: set, but DYNAMIC_CLIENT_REGISTRATION is open: set DYNAMIC_CLIENT_REGISTRATION=token to require them',
    ]);
    const pasted = 'the-token-itself-0123456789abcdefghijklmnopqrs';
    const problems = problemsOf({ DYNAMIC_CLIENT_REGISTRATION: 'token', REGISTRATION_INITIAL_ACCESS_TOKENS: `${digest},${pasted}` });
    t.same(problems, [
      'REGISTRATION_INITIAL_ACCESS_TOKENS must be comma-separated digests (sha256:…) printed by "oauth2-token-service registration token"',
    ]);
    t.notMatch(problems.join('\n'), pasted, 'a token pasted instead of its digest is never echoed');
  });

  t.test('UV_THREADPOOL_SIZE: libuv’s thread pool, a thread per CPU left beside the event loops by default', async (t) => {
    t.equal(loadConfig({ UV_THREADPOOL_SIZE: '16' }).threadPoolSize, 16, 'the operator’s size');
    t.same(problemsOf({ UV_THREADPOOL_SIZE: '0' }), ['UV_THREADPOOL_SIZE must be at least 1']);
    t.same(problemsOf({ UV_THREADPOOL_SIZE: 'four' }), ['UV_THREADPOOL_SIZE must be a whole number']);
    t.same(problemsOf({ UV_THREADPOOL_SIZE: '1025' }), ['UV_THREADPOOL_SIZE must be at most 1024']);
    t.same(
      [
        [1, 1],
        [1, 2],
        [1, 3],
        [1, 4],
        [1, 8],
        [2, 2],
        [2, 8],
        [4, 8],
        [8, 8],
      ].map(([workers, cpus]) => `${workers} on ${cpus}: ${defaultThreadPoolSize(workers as number, cpus as number)}`),
      ['1 on 1: 1', '1 on 2: 1', '1 on 3: 2', '1 on 4: 3', '1 on 8: 4', '2 on 2: 1', '2 on 8: 3', '4 on 8: 1', '8 on 8: 1'],
    );
    t.equal(loadConfig({}).threadPoolSize, defaultThreadPoolSize(1, availableParallelism()));
  });

  t.test('ACCESS_TOKEN_SIGNING: where access tokens are signed', async (t) => {
    t.equal(loadConfig({ ACCESS_TOKEN_SIGNING: 'thread-pool' }).accessTokenSigning, 'thread-pool');
    t.equal(loadConfig({ ACCESS_TOKEN_SIGNING: 'main-thread' }).accessTokenSigning, 'main-thread');
    t.same(problemsOf({ ACCESS_TOKEN_SIGNING: 'worker' }), ['ACCESS_TOKEN_SIGNING must be one of auto, main-thread, thread-pool']);
    const auto = { ACCESS_TOKEN_SIGNING: 'auto' } as const;
    t.equal(signingConfig(auto, 1, 2).accessTokenSigning, 'thread-pool', 'auto, one worker on two CPUs: the thread pool');
    t.equal(signingConfig(auto, 2, 2).accessTokenSigning, 'main-thread', 'auto, a worker on every CPU: the event loop thread');
    t.equal(signingConfig(auto, 1, 1).accessTokenSigning, 'main-thread', 'auto, one CPU: the event loop thread');
    const cpus = availableParallelism();
    t.equal(
      loadConfig({ WORKERS: String(cpus), REDIS_URL: 'redis://cache:6379' }).accessTokenSigning,
      'main-thread',
      'auto: the event loop thread when every CPU runs a worker',
    );
    t.equal(
      loadConfig({ WORKERS: 'auto', REDIS_URL: 'redis://cache:6379', ACCESS_TOKEN_SIGNING: 'thread-pool' }).accessTokenSigning,
      'thread-pool',
      'an explicit choice is kept',
    );
  });

  t.test('ACCESS_TOKEN_SIGNING_ALG: the chain of KEYS_DIR that signs access tokens', async (t) => {
    t.equal(loadConfig({}).accessTokenSigningAlg, undefined, 'unset: chosen from the folder');
    for (const alg of ['ES256', 'EdDSA', 'RS256', 'PS256'])
      t.equal(loadConfig({ ACCESS_TOKEN_SIGNING_ALG: alg }).accessTokenSigningAlg, alg);
    t.equal(loadConfig({ ACCESS_TOKEN_SIGNING_ALG: '' }).accessTokenSigningAlg, undefined, 'blank: unset');
    t.same(problemsOf({ ACCESS_TOKEN_SIGNING_ALG: 'HS256' }), ['ACCESS_TOKEN_SIGNING_ALG must be one of ES256, EdDSA, RS256, PS256']);
    t.same(problemsOf({ ACCESS_TOKEN_SIGNING_ALG: 'es256' }), ['ACCESS_TOKEN_SIGNING_ALG must be one of ES256, EdDSA, RS256, PS256']);
    t.equal(loadOperatorDefaults({ ACCESS_TOKEN_SIGNING_ALG: 'EdDSA' }).accessTokenSigningAlg, 'EdDSA', 'keys rotate reads it too');
  });

  t.test('DPoP (RFC 9449)', async (t) => {
    t.same(loadConfig({ DPOP_REQUIRE_NONCE: 'true', DPOP_PROOF_WINDOW: '30', DPOP_SIGNING_ALGS: 'ES256, ES384,ES256' }).dpop, {
      requireNonce: true,
      proofWindowSeconds: 30,
      algorithms: ['ES256', 'ES384'],
    });
    t.same(problemsOf({ DPOP_REQUIRE_NONCE: 'yes', DPOP_PROOF_WINDOW: '0' }), [
      'DPOP_REQUIRE_NONCE must be true or false',
      'DPOP_PROOF_WINDOW must be at least 1 second',
    ]);
    t.same(problemsOf({ DPOP_PROOF_WINDOW: '601' }), ['DPOP_PROOF_WINDOW must be at most 600 seconds']);
    for (const algs of ['HS256', 'ES256,none', 'RS256,']) {
      t.same(
        problemsOf({ DPOP_SIGNING_ALGS: algs }),
        [
          'DPOP_SIGNING_ALGS must be a comma-separated list of asymmetric algorithms: ES256, ES384, ES512, EdDSA, Ed25519, RS256, RS384, RS512, PS256, PS384, PS512',
        ],
        `refused: ${algs}`,
      );
    }
  });
});

t.test('loadConfig: WORKERS', async (t) => {
  const REDIS = { REDIS_URL: 'redis://cache:6379' };
  t.equal(loadConfig({ ...REDIS, WORKERS: '2' }).workers, 2, 'a count');
  t.equal(loadConfig({ ...REDIS, WORKERS: 'auto' }).workers, availableParallelism(), 'auto: one per available CPU');
  t.equal(loadConfig({ WORKERS: '1' }).workers, 1, 'one process needs no shared store');
  t.equal(loadConfig({ REDIS_CLUSTER_NODES: 'a:7000,b:7000', WORKERS: '3' }).workers, 3, 'any Redis topology is shared');
  for (const value of ['0', '257', 'all', '-1', '1.5']) {
    t.same(problemsOf({ ...REDIS, WORKERS: value }), ['WORKERS must be auto or a whole number from 1 to 256'], `WORKERS=${value}`);
  }
  t.same(
    problemsOf({ WORKERS: '2' }),
    [
      'WORKERS=2 (2 processes) needs a shared store: set REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS (the in-memory store cannot be shared between processes)',
    ],
    'the in-memory store is refused with more than one worker',
  );
  t.same(problemsOf({ ...REDIS, WORKERS: '2', PORT: '9000', METRICS_PORT: '9000' }), [
    'METRICS_PORT must differ from PORT with WORKERS=2: a scrape of PORT reaches one worker, while the primary serves the sum of all of them on METRICS_PORT',
  ]);
  t.equal(loadConfig({ ...REDIS, WORKERS: '2', METRICS_PORT: '9100' }).metricsPort, 9100, 'a port of its own is fine');
});

t.test('loadConfig: Redis topologies', async (t) => {
  t.test('REDIS_CLUSTER_NODES selects a cluster; TLS and an ACL user apply to every node', async (t) => {
    const config = loadConfig({
      REDIS_CLUSTER_NODES: 'redis-0.internal:6379, 10.0.0.2:6380,[fd00::3]:6381',
      REDIS_TLS: 'true',
      REDIS_USERNAME: 'oauth',
      REDIS_PASSWORD: 'pa:ss@word',
      REDIS_MIN_REPLICAS_ACK: '1',
      REDIS_REPLICAS_ACK_TIMEOUT_MS: '200',
    });
    t.same(config.redis, {
      topology: {
        kind: 'cluster',
        nodes: [
          { host: 'redis-0.internal', port: 6379 },
          { host: '10.0.0.2', port: 6380 },
          { host: 'fd00::3', port: 6381 },
        ],
      },
      tls: true,
      username: 'oauth',
      password: 'pa:ss@word',
      replicaAck: { minReplicas: 1, timeoutMs: 200 },
    });
  });

  t.test('REDIS_SENTINELS with REDIS_SENTINEL_NAME selects Sentinel', async (t) => {
    const config = loadConfig({
      REDIS_SENTINELS: 's1:26379,s2:26379,s3:26379',
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
      REDIS_PASSWORD: 'data-secret',
    });
    t.same(config.redis?.topology, {
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
        { host: 's3', port: 26379 },
      ],
      name: 'mymaster',
      sentinelPassword: 'sentinel-secret',
    });
    t.equal(config.redis?.password, 'data-secret');
    t.equal(config.redis?.tls, false);
  });

  t.test('REDIS_URL may carry its credentials, or take them from REDIS_USERNAME and REDIS_PASSWORD', async (t) => {
    t.match(loadConfig({ REDIS_URL: 'rediss://oauth:secret@cache:6380' }).redis, {
      topology: { kind: 'standalone', url: 'rediss://oauth:secret@cache:6380' },
      username: undefined,
    });
    t.match(loadConfig({ REDIS_URL: 'redis://cache', REDIS_USERNAME: 'oauth', REDIS_PASSWORD: 'secret' }).redis, {
      username: 'oauth',
      password: 'secret',
    });
  });

  t.test('exactly one topology, and what each requires; one line per problem, no value echoed', async (t) => {
    t.same(problemsOf({ REDIS_URL: 'redis://a', REDIS_CLUSTER_NODES: 'b:1', REDIS_SENTINELS: 'c:2', REDIS_SENTINEL_NAME: 'm' }), [
      'set only one of REDIS_URL, REDIS_CLUSTER_NODES and REDIS_SENTINELS (found REDIS_URL and REDIS_CLUSTER_NODES and REDIS_SENTINELS)',
    ]);
    t.same(problemsOf({ REDIS_SENTINELS: 'c:26379' }), [
      'REDIS_SENTINEL_NAME is required with REDIS_SENTINELS: the name the sentinels monitor the primary under',
    ]);
    t.same(problemsOf({ REDIS_CLUSTER_NODES: 'a:1', REDIS_SENTINEL_NAME: 'm', REDIS_SENTINEL_PASSWORD: 'x' }), [
      'REDIS_SENTINEL_NAME is set but REDIS_SENTINELS is not',
      'REDIS_SENTINEL_PASSWORD is set but REDIS_SENTINELS is not',
    ]);
    t.same(problemsOf({ REDIS_URL: 'redis://cache', REDIS_TLS: 'true' }), [
      'REDIS_TLS is for REDIS_CLUSTER_NODES and REDIS_SENTINELS: with REDIS_URL, use rediss://',
    ]);
    const withCredentials = problemsOf({ REDIS_URL: 'redis://u:hunter2-secret@cache', REDIS_PASSWORD: 'other-secret' });
    t.same(withCredentials, ['REDIS_URL carries credentials and REDIS_USERNAME or REDIS_PASSWORD is set: use one or the other']);
    t.same(problemsOf({ REDIS_PASSWORD: 'x', REDIS_TLS: 'true', REDIS_MIN_REPLICAS_ACK: '1' }), [
      'REDIS_TLS is set but no Redis is: set REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS',
      'REDIS_PASSWORD is set but no Redis is: set REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS',
      'REDIS_MIN_REPLICAS_ACK is set but no Redis is: set REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS',
    ]);
    t.same(problemsOf({ REDIS_URL: 'redis://cache', REDIS_MIN_REPLICAS_ACK: '1', REDIS_COMMAND_TIMEOUT_MS: '500' }), [
      'REDIS_REPLICAS_ACK_TIMEOUT_MS must be less than REDIS_COMMAND_TIMEOUT_MS: the wait for replicas is part of the command',
    ]);
    t.same(
      problemsOf({ REDIS_URL: 'redis://cache', REDIS_COMMAND_TIMEOUT_MS: '500' }),
      [],
      'without REDIS_MIN_REPLICAS_ACK there is no WAIT',
    );
  });

  t.test('node lists, the prefix and the numbers are checked one variable at a time', async (t) => {
    t.same(
      problemsOf({
        REDIS_CLUSTER_NODES: 'a:6379,,b',
        REDIS_SENTINELS: 'c:99999',
        REDIS_TLS: 'yes',
        REDIS_KEY_PREFIX: 'app{1}:',
        REDIS_MIN_REPLICAS_ACK: '17',
        REDIS_REPLICAS_ACK_TIMEOUT_MS: '0',
      }),
      [
        'REDIS_CLUSTER_NODES must be a comma-separated list of host:port (port 1-65535)',
        'REDIS_SENTINELS must be a comma-separated list of host:port (port 1-65535)',
        'REDIS_TLS must be true or false',
        'REDIS_KEY_PREFIX must not contain { or }: Redis Cluster would hash every key by the tag in the prefix, one slot for all',
        'REDIS_MIN_REPLICAS_ACK must be at most 16',
        'REDIS_REPLICAS_ACK_TIMEOUT_MS must be at least 1 millisecond',
      ],
    );
    t.same(problemsOf({ REDIS_CLUSTER_NODES: 'a:0' }), ['REDIS_CLUSTER_NODES must be a comma-separated list of host:port (port 1-65535)']);
    t.same(problemsOf({ REDIS_CLUSTER_NODES: 'redis://a:6379' }), [
      'REDIS_CLUSTER_NODES must be a comma-separated list of host:port (port 1-65535)',
    ]);
  });
});
