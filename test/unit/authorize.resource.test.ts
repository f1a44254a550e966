import type { FastifyInstance } from 'fastify';
import type { Test } from 'tap';
import t from 'tap';
import { ALICE, testUsers, WEB_REDIRECT } from '../helpers/authorize-fixtures.js';
import { authorizeUrl, formAction, formFields, InjectBrowser, pkcePair, redirectParams } from '../helpers/browser-flow.js';
import { API, claimsOf, FILES, MCP, MCP_REDIRECT, RESOURCE_CLIENTS, RESOURCES, UNREGISTERED } from '../helpers/resource-fixtures.js';
import { buildTestServer, ISSUER } from '../helpers/server.js';

/** The authorization endpoint with resource indicators (RFC 8707 §2.1). */

const { challenge } = pkcePair();
const WEB = { response_type: 'code', client_id: 'web', redirect_uri: WEB_REDIRECT, state: 'st' };
const MCP_CLIENT = {
  response_type: 'code',
  client_id: 'mcp',
  redirect_uri: MCP_REDIRECT,
  state: 'st',
  code_challenge: challenge,
  code_challenge_method: 'S256',
};

const withResources = (params: Record<string, string>, ...resources: string[]) => authorizeUrl(params, resources);

async function server(t: Test) {
  return buildTestServer(t, { clients: RESOURCE_CLIENTS, users: testUsers(), resources: RESOURCES });
}

/** The request at `url` goes back to the client's redirect URI with exactly this error, `state` and `iss`. */
async function expectErrorAtClient(
  t: Test,
  app: FastifyInstance,
  url: string,
  error: string,
  description: string,
  redirectUri = WEB_REDIRECT,
) {
  const res = await app.inject({ url });
  t.equal(res.statusCode, 302, url);
  t.equal(res.headers['cache-control'], 'no-store');
  t.ok((res.headers.location as string).startsWith(`${redirectUri}?`));
  t.same(redirectParams(res.headers.location as string), { error, error_description: description, state: 'st', iss: ISSUER });
}

t.test('GET /oauth2/authorize: a bad resource goes back to the client as invalid_target', async (t) => {
  const { app } = await server(t);
  const expectRedirected = (t: Test, url: string, error: string, description: string) =>
    expectErrorAtClient(t, app, url, error, description);
  const target = (description: string) => ['invalid_target', description] as const;

  t.test('relative, without a scheme, with a fragment (RFC 8707 §2)', async (t) => {
    await expectRedirected(t, withResources(WEB, '/mcp'), ...target('resource must be an absolute URI (RFC 8707 section 2)'));
    await expectRedirected(
      t,
      withResources(WEB, 'mcp.example.com/mcp'),
      ...target('resource must be an absolute URI (RFC 8707 section 2)'),
    );
    await expectRedirected(t, withResources(WEB, `${API}#top`), ...target('resource must not include a fragment (RFC 8707 section 2)'));
  });

  t.test('unknown: not registered under exactly this string', async (t) => {
    for (const unknown of [UNREGISTERED, 'https://API.example.com/', 'https://api.example.com', `${API}?x=1`]) {
      await expectRedirected(t, withResources(WEB, unknown), ...target('resource is not registered at this authorization server'));
    }
    await expectRedirected(t, withResources(WEB, API, UNREGISTERED), ...target('resource is not registered at this authorization server'));
  });

  t.test('a scope the client may have but no requested resource accepts', async (t) => {
    await expectRedirected(
      t,
      withResources({ ...WEB, scope: 'read' }, MCP),
      ...target('scope not offered by the requested resources: read'),
    );
  });

  t.test('invalid_scope stays for a scope outside the client registration', async (t) => {
    await expectRedirected(
      t,
      withResources({ ...WEB, scope: 'read tools' }, API, MCP),
      'invalid_scope',
      'scope not allowed for this client: tools',
    );
    await expectRedirected(
      t,
      withResources({ ...WEB, scope: 'admin' }, UNREGISTERED),
      ...target('resource is not registered at this authorization server'),
    );
  });

  t.test('after a POST, in the fragment for the implicit flow, in a form_post', async (t) => {
    const posted = await app.inject({
      method: 'POST',
      url: '/oauth2/authorize',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams([...Object.entries(WEB), ['resource', UNREGISTERED]]).toString(),
    });
    t.equal(posted.statusCode, 303);
    t.same(redirectParams(posted.headers.location as string), {
      error: 'invalid_target',
      error_description: 'resource is not registered at this authorization server',
      state: 'st',
      iss: ISSUER,
    });
    const implicit = await app.inject({ url: withResources({ response_type: 'token', client_id: 'spa', state: 's' }, `${API}#x`) });
    t.same(redirectParams(implicit.headers.location as string, 'fragment'), {
      error: 'invalid_target',
      error_description: 'resource must not include a fragment (RFC 8707 section 2)',
      state: 's',
      iss: ISSUER,
    });
    const formPost = await app.inject({ url: withResources({ ...WEB, response_mode: 'form_post' }, UNREGISTERED) });
    t.equal(formPost.statusCode, 200);
    t.match(formPost.body, '<input type="hidden" name="error" value="invalid_target">');
  });

  t.test('a bad resource for an unknown client or redirect URI is an error page, never a redirect', async (t) => {
    const res = await app.inject({ url: withResources({ ...WEB, redirect_uri: 'https://evil.example/cb' }, UNREGISTERED) });
    t.equal(res.statusCode, 400);
    t.equal(res.headers.location, undefined);
    t.match(res.body, 'the redirect_uri is not registered for this client');
  });
});

t.test('the consent page names the resources before the permissions', async (t) => {
  const { app } = await server(t);
  const consentFor = async (t: Test, url: string) => {
    const browser = new InjectBrowser(app);
    const login = await browser.get(url);
    t.equal(login.statusCode, 200, 'the login page');
    const afterLogin = await browser.post(formAction(login.body), { ...formFields(login.body), ...ALICE });
    const consent = await browser.get(afterLogin.headers.location as string);
    t.equal(consent.statusCode, 200, 'the consent page');
    return { browser, consent };
  };

  t.test('a client registered without scope gets, with consent, what the resources offer', async (t) => {
    const { consent } = await consentFor(t, withResources(MCP_CLIENT, MCP, FILES));
    const body = consent.body;
    t.match(body, '<p><strong>MCP Inspector</strong> asks for access to your account</p>');
    t.match(body, '<p>at these services:</p>');
    t.match(
      body,
      `<ul class="resources"><li><strong>Example &#60;MCP&#62;</strong> <span class="muted"><code>${MCP}</code></span></li>` +
        `<li><code>${FILES}</code></li></ul>`,
      'its name (escaped) and its URI; the URI alone when it has no name',
    );
    t.match(
      body,
      '<p>with these permissions:</p>\n<ul><li><code>tools</code></li><li><code>files:read</code></li><li><code>files:write</code></li></ul>',
    );
    t.ok(body.indexOf('class="resources"') < body.indexOf('with these permissions'), 'resources first');
  });

  t.test('one resource, an explicit scope', async (t) => {
    const { consent } = await consentFor(t, withResources({ ...MCP_CLIENT, scope: 'tools' }, MCP));
    t.match(consent.body, '<p>at this service:</p>');
    t.match(consent.body, '<ul><li><code>tools</code></li></ul>');
  });

  t.test('a registered client at a resource that accepts none of its scopes', async (t) => {
    const { consent } = await consentFor(t, withResources(WEB, MCP));
    t.match(consent.body, '<p class="muted">No specific permissions: these services decide what it may do as you.</p>');
  });

  t.test('without a resource, the page is as before', async (t) => {
    const { consent } = await consentFor(t, authorizeUrl({ ...WEB, scope: 'read' }));
    t.notMatch(consent.body, 'class="resources"');
    t.match(consent.body, '<p>with these permissions:</p>\n<ul><li><code>read</code></li></ul>');
  });

  t.test('a client without scope and without resource gets no scope, as before', async (t) => {
    const url = authorizeUrl({ ...MCP_CLIENT, scope: 'tools' });
    await expectErrorAtClient(t, app, url, 'invalid_scope', 'scope not allowed for this client: tools', MCP_REDIRECT);
    const { consent } = await consentFor(t, authorizeUrl(MCP_CLIENT));
    t.match(consent.body, 'No specific permissions: it only learns that you signed in.');
  });

  t.test('a client without scope asking a resource for a scope it does not offer', async (t) => {
    const url = withResources({ ...MCP_CLIENT, scope: 'tools write' }, MCP);
    await expectErrorAtClient(t, app, url, 'invalid_target', 'scope not offered by the requested resources: write', MCP_REDIRECT);
  });

  t.test('the implicit flow: the token is for the resources, its lifetime capped by theirs', async (t) => {
    const { browser, consent } = await consentFor(
      t,
      withResources({ response_type: 'token', client_id: 'spa', scope: 'read', state: 's' }, API, MCP),
    );
    const res = await browser.post(formAction(consent.body), { ...formFields(consent.body), decision: 'allow' });
    const params = redirectParams(res.headers.location as string, 'fragment');
    t.same(Object.keys(params).sort(), ['access_token', 'expires_in', 'iss', 'scope', 'state', 'token_type']);
    t.equal(params.expires_in, '900', 'the MCP resource caps the lifetime at 900 s');
    t.equal(params.scope, 'read');
    t.same(claimsOf(params.access_token as string).aud, [API, MCP], 'both resources, in the order requested');
  });
});
