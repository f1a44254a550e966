import { Redis } from 'ioredis';
import type { JWK } from 'jose';
import Provider, { type KoaContext } from 'oidc-provider';
import { redisAdapter } from './redis-adapter.js';

/**
 * The bench's peer: node-oidc-provider configured for what our server does in the bench,
 * listening on 127.0.0.1:$PORT in a process of its own. Access tokens are RFC 9068 JWTs
 * signed with ES256 (resource indicators, accessTokenFormat 'jwt'); codes, refresh tokens
 * and grants live in Redis ($REDIS_URL) through redis-adapter.ts; refresh tokens rotate on
 * every use. POST /bench/codes?n=N&code_challenge=C mints N codes the way the
 * authorization endpoint would (one grant each), so the bench can redeem them.
 * $BENCH_PEER (JSON): { issuer, clientId, clientSecret, redirectUri, resource, scope, jwk, subject }.
 */

interface PeerSettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri: string;
  readonly resource: string;
  readonly scope: string;
  readonly jwk: JWK;
  readonly subject: string;
}

const settings = JSON.parse(process.env.BENCH_PEER ?? '{}') as PeerSettings;
const redis = new Redis(process.env.REDIS_URL ?? '', { lazyConnect: false });
const MAX_CODES_PER_CALL = 100_000;

const provider = new Provider(settings.issuer, {
  adapter: redisAdapter(redis),
  jwks: { keys: [{ ...settings.jwk, alg: 'ES256', use: 'sig' }] },
  clients: [
    {
      client_id: settings.clientId,
      client_secret: settings.clientSecret,
      grant_types: ['client_credentials', 'authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: [settings.redirectUri],
      scope: settings.scope,
      token_endpoint_auth_method: 'client_secret_basic',
      // The only key is ES256 (the default, RS256, would need an RSA key).
      id_token_signed_response_alg: 'ES256',
    },
  ],
  findAccount: async (_ctx: unknown, accountId: string) => ({ accountId, claims: async () => ({ sub: accountId }) }),
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => settings.resource,
      useGrantedResource: async () => true,
      getResourceServerInfo: async () => ({
        scope: settings.scope,
        audience: settings.resource,
        accessTokenTTL: 3600,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'ES256' } },
      }),
    },
  },
  // As ours: a refresh token with every code redemption, and rotation on every use.
  issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
  rotateRefreshToken: true,
  // Our defaults: ACCESS_TOKEN_TTL, AUTHORIZATION_CODE_TTL at its most (codes are minted ahead), REFRESH_TOKEN_TTL.
  ttl: { AccessToken: 3600, ClientCredentials: 3600, AuthorizationCode: 600, RefreshToken: 2_592_000, Grant: 2_592_000 },
  scopes: settings.scope.split(' '),
});

const MINT_BATCH = 200;

async function mintCode(client: unknown, codeChallenge: string): Promise<string> {
  const grant = new provider.Grant({ accountId: settings.subject, clientId: settings.clientId });
  grant.addResourceScope(settings.resource, settings.scope);
  const grantId = await grant.save();
  const code = new provider.AuthorizationCode({
    accountId: settings.subject,
    client,
    grantId,
    redirectUri: settings.redirectUri,
    scope: settings.scope,
    resource: settings.resource,
    codeChallenge,
    codeChallengeMethod: 'S256',
  });
  return code.save();
}

async function mintCodes(count: number, codeChallenge: string): Promise<string[]> {
  const client = await provider.Client.find(settings.clientId);
  const codes: string[] = [];
  for (let i = 0; i < count; i += MINT_BATCH) {
    codes.push(...(await Promise.all(Array.from({ length: Math.min(MINT_BATCH, count - i) }, () => mintCode(client, codeChallenge)))));
  }
  return codes;
}

provider.use(async (ctx: KoaContext, next) => {
  if (ctx.method !== 'POST' || ctx.path !== '/bench/codes') return next();
  const count = Math.min(MAX_CODES_PER_CALL, Number(ctx.query.n));
  ctx.body = await mintCodes(count, String(ctx.query.code_challenge));
});
provider.on('server_error', (_ctx, err) => process.stderr.write(`peer server_error: ${err.message}\n`));
provider.listen(Number(process.env.PORT), '127.0.0.1');
