import { SignJWT } from 'jose';
import t from 'tap';
import type { ClientAuthenticationFailure } from '../../src/events/types.js';
import { assertionParams, unsignedAssertion } from '../helpers/client-keys.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { FAILED, keyedClientsServer, type Refusal, refusalEvent } from '../helpers/private-key-jwt.js';
import { ISSUER } from '../helpers/server.js';
import { memoryStore } from '../helpers/stores.js';

/**
 * Every refused client assertion answers the same 401 invalid_client, and the audit log says
 * which check failed: one client.authentication_failed line with the client claimed (when we
 * know it), the method, a fixed reason and the address; the debug log says it in words;
 * neither holds the assertion. Secrets: client-auth.secret-refusals.test.ts.
 */

const CC = { grant_type: 'client_credentials' };

t.test('private_key_jwt: each refused assertion, its audit reason, the same 401', async (t) => {
  const server = await keyedClientsServer(t, memoryStore);
  const { post, sign, keys, now, lines, logged, audited } = server;
  const hmac = await new SignJWT({ iss: 'keyed-service', sub: 'keyed-service', aud: ISSUER, exp: now() + 60, jti: 'h' })
    .setProtectedHeader({ alg: 'HS256', kid: 'service' })
    .sign(new TextEncoder().encode(JSON.stringify(keys.service.publicJwk)));
  const used = assertionParams(await sign(keys.service, 'keyed-service'));
  t.equal((await post('/oauth2/token', { ...CC, ...used })).statusCode, 200, 'the assertion replayed below, first accepted');
  const service = (reason: ClientAuthenticationFailure, says: string): Refusal => ({
    method: 'private_key_jwt',
    reason,
    clientId: 'keyed-service',
    says,
  });
  const signed = (options: Parameters<typeof sign>[2], clientId = 'keyed-service') =>
    sign(keys.service, clientId, options).then(assertionParams);
  const cases: [string, Record<string, string>, Refusal][] = [
    ['replayed', used, service('replayed', 'the jti was already used')],
    ['alg none', assertionParams(unsignedAssertion('keyed-service', now())), service('algorithm_not_allowed', 'alg none is not accepted')],
    ['HS256 signed with the public key', assertionParams(hmac), service('algorithm_not_allowed', 'alg HS256 is not accepted')],
    ['expired', await signed({ claims: { iat: now() - 120, exp: now() - 60 } }), service('expired', 'expired')],
    ['living too long', await signed({ claims: { exp: now() + 3600 } }), service('lifetime_too_long', 'exp is too far in the future')],
    ['not valid yet', await signed({ claims: { nbf: now() + 120 } }), service('not_yet_valid', 'not valid yet (nbf)')],
    ['no jti', await signed({ claims: { jti: undefined } }), service('malformed', 'jti is missing or malformed')],
    [
      'another audience',
      await signed({ aud: 'https://other.example.com' }),
      service('wrong_audience', 'aud is neither our issuer identifier nor our token endpoint URL'),
    ],
    [
      'the introspection endpoint as audience',
      await signed({ aud: `${ISSUER}/oauth2/introspect` }),
      service('wrong_audience', 'aud is neither our issuer identifier nor our token endpoint URL'),
    ],
    ['another client as issuer', await signed({ claims: { iss: 'keyed-rs' } }), service('wrong_issuer', 'iss is not the client_id')],
    [
      "another client's sub, with our client_id",
      { client_id: 'keyed-service', ...(await signed({ claims: { sub: 'keyed-rs' } })) },
      service('wrong_subject', 'sub is not the client_id'),
    ],
    [
      "another client's assertion, with our client_id",
      { client_id: 'keyed-service', ...assertionParams(await sign(keys.rs, 'keyed-rs')) },
      service('wrong_issuer', 'iss is not the client_id'),
    ],
    [
      "another client's sub, signed by our key",
      await signed({}, 'keyed-rs'),
      { method: 'private_key_jwt', reason: 'unknown_kid', clientId: 'keyed-rs', says: 'no key of the client for ES256 with kid service' },
    ],
    [
      'a kid not among the client keys',
      await signed({ header: { kid: 'unknown' } }),
      service('unknown_kid', 'no key of the client for ES256 with kid unknown'),
    ],
    [
      'signed by a key not the client’s, under its kid',
      assertionParams(await sign(keys.stranger, 'keyed-service')),
      service('bad_signature', 'the signature does not verify with the client key'),
    ],
    ['an access token type', await signed({ header: { typ: 'at+jwt' } }), service('wrong_type', "typ at+jwt is not a client assertion's")],
    ['not a JWT', assertionParams('not-a-jwt'), { method: 'private_key_jwt', reason: 'malformed', says: 'no client_id and no sub' }],
    [
      'not a JWT, with client_id',
      { client_id: 'keyed-service', ...assertionParams('not-a-jwt') },
      service('malformed', 'not a signed JWT (JWS compact serialization)'),
    ],
    ['an unknown client', await signed({}, 'nobody'), { method: 'private_key_jwt', reason: 'unknown_client', says: 'unknown client' }],
    [
      'a client with a secret',
      await signed({}, 'secret-service'),
      {
        method: 'private_key_jwt',
        reason: 'wrong_method',
        clientId: 'secret-service',
        says: 'the client authenticates with client_secret_basic, not private_key_jwt',
      },
    ],
    [
      'a public client',
      await signed({}, 'spa'),
      {
        method: 'private_key_jwt',
        reason: 'wrong_method',
        clientId: 'spa',
        says: 'the client authenticates with none, not private_key_jwt',
      },
    ],
  ];
  for (const [name, params, refusal] of cases) {
    t.test(name, async (t) => {
      const from = lines.length;
      expectOAuthError(t, await post('/oauth2/token', { ...CC, ...params }), FAILED);
      t.same(audited(from), [refusalEvent(refusal)], `audited: ${refusal.reason}`);
      const auditLine = logged(from).find((line) => line.audit === true);
      t.match(auditLine, { level: 30, msg: 'client.authentication_failed' }, 'at info, the event as the message');
      const debug = logged(from).find((line) => line.msg === 'client authentication refused: invalid_client');
      t.match(debug, { level: 20, method: 'private_key_jwt', reason: refusal.says }, 'the debug line says why in words');
      t.notOk(
        lines.slice(from).some((line) => line.includes(params.client_assertion as string)),
        'the assertion is not logged',
      );
    });
  }
});
