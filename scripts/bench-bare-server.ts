import Fastify from 'fastify';
import { FORM_CONTENT_TYPE, FormParams } from '../src/http/form.js';

/**
 * The benchmark's baseline: plain Fastify (logger off) with one POST route that
 * parses the form body the way the token route does and answers a constant JSON.
 * Listens on 127.0.0.1:$PORT and serves POST /token; the bench polls it for readiness.
 */

const CONSTANT_REPLY = JSON.stringify({ access_token: 'bare', token_type: 'bearer', expires_in: 3600 });

const app = Fastify({ bodyLimit: 64 * 1024 });
app.removeAllContentTypeParsers();
app.addContentTypeParser(FORM_CONTENT_TYPE, { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
  try {
    done(null, FormParams.parse(body as string));
  } catch (err) {
    done(err as Error, undefined);
  }
});

app.post('/token', async (request, reply) => {
  if (!(request.body instanceof FormParams)) return reply.code(400).send({ error: 'invalid_request' });
  return reply.header('content-type', 'application/json;charset=UTF-8').send(CONSTANT_REPLY);
});

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
