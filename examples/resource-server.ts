import Fastify from 'fastify';
import { requireScope } from '@oauth2-token-service/verifier/fastify';
import { createVerifier } from '@oauth2-token-service/verifier';

/**
 * An example resource server: `GET /api/me` answers with the token's `sub` and `scope`
 * to requests with a valid access token carrying the `read` scope, and `act` for a token
 * another service exchanged for the user's (RFC 8693: who acts for them).
 *   ISSUER=http://localhost:3000 AUDIENCE=http://localhost:3000 PORT=4000 npm run example:resource-server
 * In your own service: import { createVerifier } from '@oauth2-token-service/verifier'.
 */
const issuer = process.env.ISSUER ?? 'http://localhost:3000';
const verifier = createVerifier({ issuer, audience: process.env.AUDIENCE ?? issuer });
const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info' } });

app.get('/api/me', { preHandler: requireScope(verifier, 'read') }, async (request) => ({
  sub: request.accessToken?.sub,
  scope: request.accessToken?.scope ?? '',
  ...(request.accessToken?.act ? { act: request.accessToken.act } : {}),
}));

try {
  await app.listen({ port: Number(process.env.PORT ?? 4000), host: process.env.HOST ?? '127.0.0.1' });
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
}
