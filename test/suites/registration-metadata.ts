import type { Test } from 'tap';
import { clientOf } from '../../src/clients/registered-client.js';
import type { Client } from '../../src/clients/registry.js';
import { WEB_REDIRECT } from '../helpers/authorize-fixtures.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { REFUSED_METADATA } from '../helpers/refused-metadata.js';
import { NATIVE_CLIENT, registrationServer, WEB_CLIENT } from '../helpers/registration.js';
import type { OpenStore } from '../helpers/stores.js';

/** What a client may register at POST /oauth2/register (RFC 7591 §2), and the exact refusals (§3.2.2). The same on every store. */

export function registrationMetadataSuite(t: Test, name: string, open: OpenStore): void {
  t.test(`POST /oauth2/register: refused metadata, exact errors (${name})`, async (t) => {
    const server = await registrationServer(t, await open(t));
    for (const [what, body, expected] of REFUSED_METADATA) {
      t.test(what, async (t) => expectOAuthError(t, await server.register(body), expected));
    }
    t.test('a body that is not JSON', async (t) => {
      expectOAuthError(t, await server.register('{"redirect_uris":'), {
        status: 400,
        error: 'invalid_request',
        description: 'request body is malformed',
      });
      expectOAuthError(t, await server.register('redirect_uris=x', { 'content-type': 'application/x-www-form-urlencoded' }), {
        status: 400,
        error: 'invalid_request',
        description: 'unsupported content type: send the client metadata as application/json',
      });
    });
  });

  t.test(`redirect URIs a native app may register (${name})`, async (t) => {
    const server = await registrationServer(t, await open(t));
    const accepted: [unknown[], string | undefined, string][] = [
      [['com.example.app:/oauth2redirect'], undefined, 'native'],
      [['cursor://anysphere.cursor-retrieval/oauth/callback'], undefined, 'native'],
      [['http://localhost:6274/oauth/callback'], undefined, 'native'],
      [['http://[::1]/callback', 'https://vscode.dev/redirect'], undefined, 'native'],
      [['https://app.example.org/native'], 'native', 'native'],
      [[WEB_REDIRECT], undefined, 'web'],
    ];
    for (const [redirect_uris, application_type, expected] of accepted) {
      const info = await server.registered(t, { ...NATIVE_CLIENT, redirect_uris, ...(application_type ? { application_type } : {}) });
      t.same([info.redirect_uris, info.application_type], [redirect_uris, expected], redirect_uris.join(' '));
    }
  });

  t.test(`OpenID Connect client metadata: stored, returned, on the client; the post-logout URI works (${name})`, async (t) => {
    const server = await registrationServer(t, await open(t));
    const oidc = {
      post_logout_redirect_uris: ['https://app.example.org/signed-out', 'https://app.example.org/signed-out'],
      id_token_signed_response_alg: 'ES256',
      default_max_age: 3600,
      require_auth_time: true,
    };
    const info = await server.registered(t, { ...WEB_CLIENT, ...oidc });
    t.match(info, { ...oidc, post_logout_redirect_uris: ['https://app.example.org/signed-out'] }, 'returned, duplicates dropped');
    const clientNow = async (clientId: string): Promise<Client> => {
      const stored = await server.store.clientRegistrations.findClientRegistration(clientId);
      return clientOf(stored?.record as NonNullable<typeof stored>['record'], ['authorization_code', 'refresh_token']);
    };
    const client = await clientNow(info.client_id);
    t.same(
      [client.postLogoutRedirectUris, client.idTokenSignedResponseAlg, client.defaultMaxAge, client.requireAuthTime],
      [['https://app.example.org/signed-out'], 'ES256', 3600, true],
    );
    const signedOut = await server.app.inject({
      method: 'GET',
      url: `/oauth2/logout?client_id=${info.client_id}&post_logout_redirect_uri=${encodeURIComponent('https://app.example.org/signed-out')}&state=s1`,
    });
    t.same(
      [signedOut.statusCode, signedOut.headers.location],
      [302, 'https://app.example.org/signed-out?state=s1'],
      'nobody signed in: straight back',
    );

    const plain = await server.registered(t, { ...NATIVE_CLIENT, require_auth_time: false, post_logout_redirect_uris: [] });
    for (const field of Object.keys(oidc)) t.notOk(field in plain, `${field}: not returned unless set`);
    const plainClient = await clientNow(plain.client_id);
    t.same(
      [plainClient.postLogoutRedirectUris, plainClient.idTokenSignedResponseAlg, plainClient.defaultMaxAge, plainClient.requireAuthTime],
      [undefined, undefined, undefined, undefined],
      'the defaults: RS256, no default max_age, auth_time only when asked',
    );
    const native = await server.registered(t, {
      ...NATIVE_CLIENT,
      post_logout_redirect_uris: ['http://127.0.0.1:8123/bye', 'com.example.app:/bye'],
    });
    t.same(
      native.post_logout_redirect_uris,
      ['http://127.0.0.1:8123/bye', 'com.example.app:/bye'],
      'a native app: loopback and private-use',
    );
  });
}
