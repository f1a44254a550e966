import { randomUUID } from 'node:crypto';
import { decodeJwt, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import type { Test } from 'tap';
import { hashClientSecret } from '../../src/clients/secret.js';
import { federatedSubject } from '../../src/identity/federated-subject.js';
import { WEB_SECRET } from '../helpers/authorize-fixtures.js';
import { capturedLogger } from '../helpers/logs.js';
import { RESOURCE } from '../helpers/oidc-fixtures.js';
import { basic, FORM_HEADERS, ISSUER } from '../helpers/server.js';
import type { OpenStore } from '../helpers/stores.js';
import { ACCOUNTS, type Federation, federatedTokens, federation } from '../helpers/upstream-fixtures.js';
import { rawSignedByUpstream, signedByUpstream, type UpstreamOidc } from '../helpers/upstream-oidc.js';

/**
 * Enterprise-managed authorization: the JWT bearer grant (RFC 7523 §2.1) with ID-JAGs
 * (draft-ietf-oauth-identity-assertion-authz-grant) signed by an identity provider trusted
 * in IDENTITY_PROVIDERS_FILE (node-oidc-provider, over real HTTP: its discovery and JWKS),
 * on a store (memory and Redis).
 */

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const AGENT = 'agent';
const OTHER = 'other-agent';
const AGENT_SECRET = 'agent-secret-0123456789abcdefghijklmnopqrstuvwxyz';
const DOCS = 'https://docs.example.com/api';

const agentClient = (clientId: string, extra: Record<string, unknown> = {}) => ({
  client_id: clientId,
  client_secret_hash: hashClientSecret(AGENT_SECRET),
  grant_types: [JWT_BEARER],
  scope: 'mcp:tools docs:read',
  ...extra,
});

const REFUSED = { error: 'invalid_grant', error_description: 'the assertion is not a valid ID-JAG for this client' };

interface Setup {
  readonly f: Federation;
  readonly log: ReturnType<typeof capturedLogger>;
  /** An ID-JAG for ada, for client `agent`, at our issuer, for RESOURCE, with `claims` over it. */
  idJag(claims?: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  /** The token request of `clientId` (default agent) with `assertion` and `extra` parameters. */
  exchange(
    assertion: string,
    extra?: Record<string, string>,
    clientId?: string,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  /** The `assertion.refused` reasons logged so far. */
  refusals(): string[];
}

async function setup(t: Test, openStore: OpenStore, providers?: (u: UpstreamOidc) => unknown[]): Promise<Setup> {
  const log = capturedLogger('info');
  const f = await federation(t, {
    store: await openStore(t),
    logger: log.logger,
    clients: [agentClient(AGENT), agentClient(OTHER), agentClient('no-grant', { grant_types: ['client_credentials'] })],
    resources: [
      { resource: RESOURCE, scope: 'mcp:tools' },
      { resource: DOCS, scope: 'docs:read docs:write' },
    ],
    providers:
      providers ??
      ((u) => [u.providerEntry('corp', { name: 'Corporate SSO', id_jag: true }), u.providerEntry('other', { name: 'Partner' })]),
  });
  const now = Math.floor(Date.now() / 1000);
  return {
    f,
    log,
    idJag: (claims = {}, header = {}) =>
      signedByUpstream(
        {
          iss: f.upstream.issuer,
          sub: ACCOUNTS.ada.sub,
          aud: ISSUER,
          client_id: AGENT,
          jti: randomUUID(),
          iat: now,
          exp: now + 300,
          resource: RESOURCE,
          scope: 'mcp:tools openid',
          email: ACCOUNTS.ada.email,
          email_verified: true,
          ...claims,
        } as JWTPayload,
        header,
      ),
    exchange: async (assertion, extra = {}, clientId = AGENT) => {
      const res = await f.server.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        headers: { ...FORM_HEADERS, authorization: basic(clientId, AGENT_SECRET) },
        payload: new URLSearchParams({ grant_type: JWT_BEARER, assertion, ...extra }).toString(),
      });
      return { status: res.statusCode, body: res.json() as Record<string, unknown> };
    },
    refusals: () =>
      log
        .lines()
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.event === 'assertion.refused')
        .map((line) => `${String(line.clientId)}: ${String(line.reason)}`),
  };
}

export function idJagSuite(t: Test, openStore: OpenStore): void {
  t.test('a valid ID-JAG: an access token for the resource, the browser sign-in subject, no refresh token', async (t) => {
    const s = await setup(t, openStore);
    const res = await s.exchange(await s.idJag());
    t.equal(res.status, 200, JSON.stringify(res.body));
    t.same(Object.keys(res.body).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
    t.equal(res.body.token_type, 'bearer');
    // The ID-JAG's scope within the client's and the resource's: openid is neither.
    t.equal(res.body.scope, 'mcp:tools');
    const claims = decodeJwt(res.body.access_token as string);
    t.equal(claims.sub, federatedSubject('corp', ACCOUNTS.ada.sub));
    t.equal(claims.aud, RESOURCE);
    t.equal(claims.client_id, AGENT);
    t.equal(claims.iss, ISSUER);
    // One person, one subject: the same sub as ada's sign-in through corp in a browser.
    const browser = await federatedTokens(s.f, { login: ACCOUNTS.ada.sub });
    t.equal(decodeJwt(browser.tokens.access_token as string).sub, claims.sub);
    // The token is live at introspection, and the grant is listed under ada.
    const introspected = await s.f.server.app.inject({
      method: 'POST',
      url: '/oauth2/introspect',
      headers: { ...FORM_HEADERS, authorization: basic(AGENT, AGENT_SECRET) },
      payload: new URLSearchParams({ token: res.body.access_token as string }).toString(),
    });
    t.equal(introspected.json().active, true);
    t.equal(introspected.json().sub, claims.sub);
    const logged = s.log.lines().map((line) => JSON.parse(line) as Record<string, unknown>);
    const issued = logged.find((line) => line.event === 'token.issued' && line.grant === 'jwt_bearer');
    t.match(issued, { clientId: AGENT, sub: claims.sub, scope: ['mcp:tools'], resource: [RESOURCE], refreshToken: false });
    t.equal(typeof issued?.grantId, 'string', 'a grant id, for the grants command');
  });

  t.test('resource and scope: the request narrows within the ID-JAG; outside it, invalid_target or invalid_scope', async (t) => {
    const s = await setup(t, openStore);
    const both = await s.idJag({ resource: [RESOURCE, DOCS], scope: 'mcp:tools docs:read docs:write' });
    const docs = await s.exchange(both, { resource: DOCS });
    t.equal(docs.status, 200);
    t.equal(decodeJwt(docs.body.access_token as string).aud, DOCS);
    // docs:write is the ID-JAG's and the resource's, not the client's.
    t.equal(docs.body.scope, 'docs:read');
    const narrowed = await s.exchange(await s.idJag({ resource: [RESOURCE, DOCS], scope: 'mcp:tools docs:read' }), {
      scope: 'mcp:tools',
      resource: RESOURCE,
    });
    t.equal(narrowed.body.scope, 'mcp:tools');
    t.same((await s.exchange(await s.idJag(), { resource: DOCS })).body, {
      error: 'invalid_target',
      error_description: 'resource is not one the assertion names',
    });
    t.same((await s.exchange(await s.idJag({ resource: 'https://unknown.example.com/' }))).body, {
      error: 'invalid_target',
      error_description: 'resource is not registered at this authorization server',
    });
    t.same((await s.exchange(await s.idJag({ scope: 'mcp:tools' }), { scope: 'mcp:tools docs:read' })).body, {
      error: 'invalid_scope',
      error_description: 'scope not allowed for this client: docs:read',
    });
    // Without a scope in the ID-JAG: a token for the resource with none.
    const none = await s.exchange(await s.idJag({ scope: undefined }));
    t.equal(none.status, 200);
    t.equal(none.body.scope, undefined);
  });

  t.test('refused ID-JAGs: invalid_grant, and the audit log says which check failed', async (t) => {
    const s = await setup(t, openStore);
    const now = Math.floor(Date.now() / 1000);
    const replayed = await s.idJag();
    t.equal((await s.exchange(replayed)).status, 200);
    const { privateKey: strangerKey } = await generateKeyPair('RS256');
    const stranger = await new SignJWT({ iss: s.f.upstream.issuer, sub: 'ada-123', aud: ISSUER, client_id: AGENT, jti: randomUUID() })
      .setProtectedHeader({ alg: 'RS256', kid: 'upstream-rs256', typ: 'oauth-id-jag+jwt' })
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(strangerKey);
    const cases: [string, Promise<string> | string, string][] = [
      ['a replayed jti', replayed, 'replayed'],
      ['another audience', s.idJag({ aud: 'https://other-as.example.com' }), 'wrong_audience'],
      ['the token endpoint as audience', s.idJag({ aud: `${ISSUER}/oauth2/token` }), 'wrong_audience'],
      ["another client's client_id", s.idJag({ client_id: OTHER }), 'other_client'],
      ['no typ', s.idJag({}, { typ: undefined }), 'wrong_type'],
      ['typ JWT', s.idJag({}, { typ: 'JWT' }), 'wrong_type'],
      ['expired', s.idJag({ iat: now - 600, exp: now - 120 }), 'expired'],
      ['exp too far ahead', s.idJag({ exp: now + 7200 }), 'lifetime_too_long'],
      ['no jti', s.idJag({ jti: undefined }), 'invalid_claims'],
      ['no client_id', s.idJag({ client_id: undefined }), 'invalid_claims'],
      ['an untrusted issuer (no id_jag)', s.idJag({ iss: 'https://login.unknown.example.com' }), 'untrusted_issuer'],
      ['signed by another key', stranger, 'bad_signature'],
      ['a kid the provider does not have', s.idJag({}, { kid: 'not-a-kid' }), 'unknown_key'],
      ['not a JWT', 'not.a.jwt', 'malformed'],
      [
        'a critical header we do not know',
        rawSignedByUpstream(
          { alg: 'RS256', kid: 'upstream-rs256', typ: 'oauth-id-jag+jwt', crit: ['x-unknown'], 'x-unknown': true },
          { ...decodeJwt(replayed), jti: randomUUID() },
        ),
        'malformed',
      ],
    ];
    for (const [name, assertion, reason] of cases) {
      const res = await s.exchange(await assertion);
      t.equal(res.status, 400, name);
      t.same(res.body, REFUSED, name);
      t.equal(s.refusals().at(-1), `${AGENT}: ${reason}`, `${name}: ${reason} in the audit log`);
    }
    t.equal(s.refusals().length, cases.length, 'one audit line each');
    t.notOk(s.log.text().includes(replayed.split('.')[2] as string), 'no assertion in the log');
  });

  t.test('aud: our issuer identifier, a string or an array of that one value; an array naming another server is refused', async (t) => {
    const s = await setup(t, openStore);
    const auditLines = () =>
      s.log
        .lines()
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.audit === true && line.event !== 'token.issued')
        .map(({ level: _level, time: _time, pid: _pid, hostname: _hostname, audit: _audit, msg: _msg, ...event }) => event);
    const accepted = await s.exchange(await s.idJag({ aud: [ISSUER] }));
    t.equal(accepted.status, 200, '[issuer]');
    t.equal(decodeJwt(accepted.body.access_token as string).aud, RESOURCE);
    const other = 'https://other-as.example.com';
    // Each server named would remember the jti only for itself: the same grant would work at each.
    for (const aud of [[ISSUER, other], [other, ISSUER], [other], [ISSUER, ISSUER], [ISSUER, `${ISSUER}/oauth2/token`], []]) {
      const before = auditLines().length;
      const res = await s.exchange(await s.idJag({ aud }));
      t.equal(res.status, 400, JSON.stringify(aud));
      t.same(res.body, REFUSED, JSON.stringify(aud));
      t.same(
        auditLines().slice(before),
        [{ event: 'assertion.refused', grant: 'jwt_bearer', clientId: AGENT, reason: 'wrong_audience' }],
        `${JSON.stringify(aud)}: one assertion.refused, wrong_audience`,
      );
    }
  });

  t.test("an issuer trusted for sign-in but not for ID-JAGs, and the provider's access rules", async (t) => {
    const s = await setup(t, openStore, (u) => [u.providerEntry('corp', { id_jag: true, allowed_email_domains: ['example.com'] })]);
    t.equal((await s.exchange(await s.idJag())).status, 200);
    const eve = await s.exchange(await s.idJag({ sub: ACCOUNTS.eve.sub, email: ACCOUNTS.eve.email }));
    t.same(eve.body, REFUSED);
    t.equal(s.refusals().at(-1), `${AGENT}: refused`);
    const untrusted = await setup(t, openStore, (u) => [u.providerEntry('corp', {})]);
    t.same((await untrusted.exchange(await untrusted.idJag())).body, REFUSED);
    t.equal(untrusted.refusals().at(-1), `${AGENT}: untrusted_issuer`);
  });

  t.test('the grant is for confidential clients that list it; discovery lists it', async (t) => {
    const s = await setup(t, openStore);
    const res = await s.exchange(await s.idJag({ client_id: 'no-grant' }), {}, 'no-grant');
    t.equal(res.status, 400);
    t.equal(res.body.error, 'unauthorized_client');
    const wrongSecret = await s.f.server.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { ...FORM_HEADERS, authorization: basic(AGENT, WEB_SECRET) },
      payload: new URLSearchParams({ grant_type: JWT_BEARER, assertion: await s.idJag() }).toString(),
    });
    t.equal(wrongSecret.statusCode, 401);
    t.equal(wrongSecret.json().error, 'invalid_client');
    t.same((await s.exchange('', {})).body.error, 'invalid_request');
    const metadata = (await s.f.server.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json();
    t.ok((metadata.grant_types_supported as string[]).includes(JWT_BEARER));
  });
}
