import Fastify from 'fastify';
import { BODY_LIMIT_BYTES, formRequest, useOAuthFormBodies } from '../src/http/form-body.js';

/**
 * The benchmark's baseline: plain Fastify (logger off) with one POST route that parses
 * the form body with the token route's own setup and answers a constant JSON.
 * Listens on 127.0.0.1:$PORT and serves POST /token (and GET /healthz for readiness).
 */

const CONSTANT_REPLY = JSON.stringify({ access_token: 'bare', token_type: 'bearer', expires_in: 3600 });

const app = Fastify({ bodyLimit: BODY_LIMIT_BYTES });
app.get('/healthz', async () => ({ status: 'ok' }));
await app.register(async (scope) => {
  useOAuthFormBodies(scope, { realm: 'bench', storeOutage: 'server_error' });
  scope.post('/token', async (request, reply) => {
    formRequest(request.body, request.url);
    return reply.header('content-type', 'application/json;charset=UTF-8').send(CONSTANT_REPLY);
  });
});

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
