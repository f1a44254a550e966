import { decodeJwt } from 'jose';
import t, { type Test } from 'tap';
import { assertionParams } from '../helpers/client-keys.js';
import { expectOAuthError, type InjectedResponse } from '../helpers/oauth-error.js';
import { FAILED, keyedClientsServer, refusalEvent } from '../helpers/private-key-jwt.js';
import { ISSUER } from '../helpers/server.js';
import { memoryStore } from '../helpers/stores.js';

/**
 * The audience of a client assertion (draft-ietf-oauth-rfc7523bis §4): our issuer identifier
 * as its sole value, a string or an array of that one value; an array naming another server
 * is refused (wrong_audience), even with us in it. An assertion typed
 * client-authentication+jwt gets that rule alone; one without that typ may also name our
 * token endpoint URL (clients written before the draft), unless
 * CLIENT_ASSERTION_STRICT_AUDIENCE=true. The same rule at every endpoint that authenticates
 * clients. Each case: the exact answer and the exact audit events.
 */

const TOKEN_ENDPOINT = `${ISSUER}/oauth2/token`;
const OTHER = 'https://other-as.example.com';
const TYPED = { typ: 'client-authentication+jwt' };
const CC = { grant_type: 'client_credentials' };

type Server = Awaited<ReturnType<typeof keyedClientsServer>>;

interface Case {
  readonly name: string;
  readonly aud: unknown;
  readonly header?: Record<string, unknown>;
  /** The debug line's words when refused; undefined: accepted. */
  readonly refused?: string;
  readonly reason?: 'wrong_audience' | 'wrong_type';
}

const WRONG_AUD = 'wrong_audience' as const;
const NOT_ALONE = 'aud is not our issuer identifier alone';
const NOT_OURS = 'aud names others than our issuer identifier and token endpoint URL';

/** The audit events of a client_credentials token issued to keyed-service. */
function issuedEvents(res: InjectedResponse) {
  const { jti } = decodeJwt((res.json() as { access_token: string }).access_token);
  return [
    {
      event: 'token.issued',
      grant: 'client_credentials',
      clientId: 'keyed-service',
      sub: 'keyed-service',
      scope: ['read', 'write'],
      resource: [],
      jti,
      refreshToken: false,
    },
  ];
}

/** Posts an assertion of keyed-service for `c` to `path`; checks the answer and the audit events. */
async function check(t: Test, server: Server, path: string, c: Case, params: Record<string, string>) {
  const { post, sign, keys, lines, audited } = server;
  const from = lines.length;
  const assertion = await sign(keys.service, 'keyed-service', { aud: c.aud, ...(c.header ? { header: c.header } : {}) });
  const res = await post(path, { ...params, ...assertionParams(assertion) });
  if (c.refused === undefined) {
    t.equal(res.statusCode, 200, `${c.name}: accepted at ${path}`);
    const events = audited(from);
    t.same(events, path === '/oauth2/token' ? issuedEvents(res) : [], `${c.name}: no refusal audited`);
    return;
  }
  expectOAuthError(t, res, FAILED);
  t.same(audited(from), [refusalEvent({ method: 'private_key_jwt', clientId: 'keyed-service', reason: c.reason ?? WRONG_AUD })]);
  const debug = server.logged(from).find((line) => line.msg === 'client authentication refused: invalid_client');
  t.match(debug, { level: 20, method: 'private_key_jwt', reason: c.refused }, `${c.name}: ${c.refused}`);
}

const COMMON: Case[] = [
  { name: 'the issuer identifier', aud: ISSUER },
  { name: 'the issuer identifier in an array of one', aud: [ISSUER] },
  { name: 'the issuer identifier typed client-authentication+jwt', aud: ISSUER, header: TYPED },
  { name: '[issuer] typed client-authentication+jwt', aud: [ISSUER], header: TYPED },
  { name: 'the issuer typed JWT', aud: ISSUER, header: { typ: 'JWT' } },
  { name: '[issuer, another server]', aud: [ISSUER, OTHER], refused: NOT_OURS },
  { name: '[another server, issuer] typed', aud: [OTHER, ISSUER], header: TYPED, refused: NOT_ALONE },
  { name: '[another server]', aud: [OTHER], refused: NOT_OURS },
  { name: 'another server', aud: OTHER, refused: 'aud is neither our issuer identifier nor our token endpoint URL' },
  {
    name: 'the token endpoint URL typed client-authentication+jwt',
    aud: TOKEN_ENDPOINT,
    header: TYPED,
    refused: 'aud is not our issuer identifier',
  },
  { name: '[issuer, token endpoint] typed', aud: [ISSUER, TOKEN_ENDPOINT], header: TYPED, refused: NOT_ALONE },
  {
    name: 'an unknown explicit type',
    aud: ISSUER,
    header: { typ: 'example-authentication+jwt' },
    refused: "typ example-authentication+jwt is not a client assertion's",
    reason: 'wrong_type',
  },
];

t.test('by default: the token endpoint URL still accepted without the RFC 7523bis typ', async (t) => {
  const server = await keyedClientsServer(t, memoryStore);
  const cases: Case[] = [
    ...COMMON,
    { name: 'the token endpoint URL, untyped', aud: TOKEN_ENDPOINT },
    { name: 'the token endpoint URL typed JWT', aud: TOKEN_ENDPOINT, header: { typ: 'JWT' } },
    { name: '[issuer, token endpoint] untyped (openid-client 5)', aud: [ISSUER, TOKEN_ENDPOINT] },
  ];
  for (const c of cases) await check(t, server, '/oauth2/token', c, CC);
});

t.test('CLIENT_ASSERTION_STRICT_AUDIENCE=true: the issuer identifier alone, whatever the typ', async (t) => {
  const server = await keyedClientsServer(t, memoryStore, { env: { CLIENT_ASSERTION_STRICT_AUDIENCE: 'true' } });
  t.equal(server.config.clientAssertionStrictAudience, true);
  const strict = (c: Case): Case =>
    c.refused === NOT_OURS
      ? { ...c, refused: NOT_ALONE }
      : c.refused?.startsWith('aud is neither')
        ? { ...c, refused: 'aud is not our issuer identifier' }
        : c;
  const cases: Case[] = [
    ...COMMON.map(strict),
    { name: 'the token endpoint URL, untyped', aud: TOKEN_ENDPOINT, refused: 'aud is not our issuer identifier' },
    { name: '[token endpoint] typed JWT', aud: [TOKEN_ENDPOINT], header: { typ: 'JWT' }, refused: NOT_ALONE },
    { name: '[issuer, token endpoint] untyped', aud: [ISSUER, TOKEN_ENDPOINT], refused: NOT_ALONE },
  ];
  for (const c of cases) await check(t, server, '/oauth2/token', c, CC);
});

t.test('the same rule at revocation and introspection', async (t) => {
  for (const strict of [false, true]) {
    const server = await keyedClientsServer(t, memoryStore, strict ? { env: { CLIENT_ASSERTION_STRICT_AUDIENCE: 'true' } } : {});
    const token = { token: 'not-a-token-of-ours' };
    const at = (path: string, c: Case) => check(t, server, path, c, token);
    for (const path of ['/oauth2/revoke', '/oauth2/introspect']) {
      await at(path, { name: '[issuer] typed', aud: [ISSUER], header: TYPED });
      await at(path, { name: '[issuer, another server]', aud: [ISSUER, OTHER], refused: strict ? NOT_ALONE : NOT_OURS });
      await at(path, {
        name: 'the token endpoint URL typed',
        aud: TOKEN_ENDPOINT,
        header: TYPED,
        refused: 'aud is not our issuer identifier',
      });
      await at(
        path,
        strict
          ? { name: 'the token endpoint URL, untyped', aud: TOKEN_ENDPOINT, refused: 'aud is not our issuer identifier' }
          : { name: 'the token endpoint URL, untyped', aud: TOKEN_ENDPOINT },
      );
    }
  }
});
