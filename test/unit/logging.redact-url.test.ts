import t from 'tap';
import { redactQueriesIn, redactUrl } from '../../src/http/logging.js';
import { capturedLogger } from '../helpers/logs.js';
import { buildTestServer } from '../helpers/server.js';

t.test('redactUrl: only harmless query values reach a log', async (t) => {
  t.equal(redactUrl('/oauth2/token'), '/oauth2/token');
  t.equal(
    redactUrl(
      '/oauth2/authorize?response_type=code&client_id=web%20app&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb&scope=read+write&state=s1&code_challenge=c1&nonce=n1',
    ),
    '/oauth2/authorize?response_type=code&client_id=web%20app&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb&scope=read%20write&state=[REDACTED]&code_challenge=[REDACTED]&nonce=[REDACTED]',
  );
  t.equal(
    redactUrl('/oauth2/token?client_secret=s&code=c&code_verifier=v&password=p&refresh_token=r&access_token=a&token=t&assertion=x'),
    '/oauth2/token?client_secret=[REDACTED]&code=[REDACTED]&code_verifier=[REDACTED]&password=[REDACTED]&refresh_token=[REDACTED]&access_token=[REDACTED]&token=[REDACTED]&assertion=[REDACTED]',
  );
  t.equal(
    redactUrl('/oauth2/token?client_secrt=typo-value'),
    '/oauth2/token?[REDACTED]=[REDACTED]',
    'an unknown name and its value are masked',
  );
  t.equal(redactUrl('/oauth2/token?eyJhbGciOiJFUzI1NiJ9.bare-token'), '/oauth2/token?[REDACTED]=[REDACTED]', 'a bare value is masked');
  t.equal(redactUrl('/cb#access_token=fragment-value'), '/cb', 'a fragment is dropped');
  t.equal(redactUrl('/cb?scope=read#access_token=fragment-value'), '/cb?scope=read');
  t.equal(redactUrl('/cb?'), '/cb');
});

t.test('redactQueriesIn: URLs quoted in a message lose their query values', async (t) => {
  t.equal(
    redactQueriesIn(
      'Reply was already sent, did you forget to "return reply" in the "/oauth2/token?client_secret=s3&scope=read" (POST) route?',
    ),
    'Reply was already sent, did you forget to "return reply" in the "/oauth2/token?client_secret=[REDACTED]&scope=read" (POST) route?',
  );
  t.equal(redactQueriesIn('Route GET:/x?code=abc not found'), 'Route GET:/x?code=[REDACTED] not found');
  t.equal(redactQueriesIn('signing keys reloaded'), 'signing keys reloaded');
});

t.test("Fastify's own warnings quote the URL with its query masked", async (t) => {
  const logs = capturedLogger('info');
  const { app } = await buildTestServer(t, { logger: logs.logger });
  // A handler that sends twice: Fastify warns, quoting the raw URL.
  app.get('/sends-twice', async (_request, reply) => {
    reply.send('first');
    return 'second';
  });
  t.equal((await app.inject({ url: '/sends-twice?code=double-send-code' })).statusCode, 200);
  const warning = logs.lines().find((line) => line.includes('FST_ERR_REP_ALREADY_SENT'));
  t.match(JSON.parse(warning ?? '{}'), {
    level: 40,
    err: {
      code: 'FST_ERR_REP_ALREADY_SENT',
      message: 'Reply was already sent, did you forget to "return reply" in "/sends-twice?code=[REDACTED]" (GET)?',
    },
    msg: 'Reply was already sent, did you forget to "return reply" in "/sends-twice?code=[REDACTED]" (GET)?',
  });
  t.notMatch(logs.text(), 'double-send-code');
  t.match(
    JSON.parse(warning ?? '{}').err,
    { type: 'FastifyError', stack: /^FastifyError: Reply was already sent.*code=\[REDACTED\]/ },
    'the error keeps its type and stack',
  );
});
