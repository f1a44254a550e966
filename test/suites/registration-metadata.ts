import type { Test } from 'tap';
import { WEB_REDIRECT } from '../helpers/authorize-fixtures.js';
import { expectOAuthError } from '../helpers/oauth-error.js';
import { REFUSED_METADATA } from '../helpers/refused-metadata.js';
import { NATIVE_CLIENT, registrationServer } from '../helpers/registration.js';
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
}
