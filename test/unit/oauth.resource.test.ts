import t from 'tap';
import { OAuthError } from '../../src/errors/index.js';
import { FormParams } from '../../src/oauth/form-params.js';
import { type AccessTarget, narrowGrantTarget, resolveNewTarget, type TargetRequest } from '../../src/resources/indicators.js';
import { ResourceRegistry } from '../../src/resources/registry.js';
import { API, FILES, MCP, RESOURCES, UNREGISTERED } from '../helpers/resource-fixtures.js';

/** The rules of src/oauth/resource.ts, every combination, without HTTP. */

const registry = ResourceRegistry.fromEntries(RESOURCES);

/** The outcome in a comparable form: `aud scope` on success, `error: description` on failure. */
function outcome(run: () => AccessTarget): string {
  try {
    const { resources, scope } = run();
    return `[${resources.map((r) => r.resource).join(' ')}] ${scope.join(' ')}`.trimEnd();
  } catch (err) {
    if (err instanceof OAuthError) return `${err.error}: ${err.description}`;
    throw err;
  }
}

const request = (resource: string[], scope?: string): TargetRequest => ({ resource, scope });

t.test('FormParams: resource is the one parameter that may repeat (RFC 8707 §2)', async (t) => {
  const params = FormParams.parse(`resource=${encodeURIComponent(MCP)}&scope=tools&resource=&resource=${encodeURIComponent(API)}`);
  t.same(params.all('resource'), [MCP, API], 'every non-empty value, in order');
  t.equal(params.get('resource'), undefined, 'read with all(), never get()');
  t.ok(params.has('resource'));
  t.same(FormParams.parse('scope=a').all('resource'), []);
  t.throws(() => FormParams.parse('scope=a&scope=b'), { name: 'InvalidRequest', message: "parameter 'scope' is repeated" });
});

t.test('a new authorization (authorization endpoint, client_credentials, password)', async (t) => {
  const withScope = ['read', 'write', 'tools'];
  const cases: [string, TargetRequest, readonly string[], boolean, string][] = [
    // No resource: RFC 6749 §3.3 as before, whatever the client.
    ['no resource, no scope: the registered scope', request([]), withScope, false, '[] read write tools'],
    ['no resource, a registered scope', request([], 'read'), withScope, false, '[] read'],
    [
      'no resource, outside the registration',
      request([], 'admin'),
      withScope,
      false,
      'invalid_scope: scope not allowed for this client: admin',
    ],
    ['no resource, no registration, consent', request([], 'tools'), [], true, 'invalid_scope: scope not allowed for this client: tools'],
    ['no resource, no registration, no scope', request([]), [], true, '[]'],
    // Malformed or unknown resources.
    ['relative', request(['/mcp']), withScope, false, 'invalid_target: resource must be an absolute URI (RFC 8707 section 2)'],
    [
      'no scheme',
      request(['mcp.example.com/mcp']),
      withScope,
      false,
      'invalid_target: resource must be an absolute URI (RFC 8707 section 2)',
    ],
    ['fragment', request([`${MCP}#x`]), withScope, false, 'invalid_target: resource must not include a fragment (RFC 8707 section 2)'],
    ['empty fragment', request([`${MCP}#`]), withScope, false, 'invalid_target: resource must not include a fragment (RFC 8707 section 2)'],
    ['unknown', request([UNREGISTERED]), withScope, false, 'invalid_target: resource is not registered at this authorization server'],
    [
      'other case',
      request(['https://MCP.example.com/mcp']),
      withScope,
      false,
      'invalid_target: resource is not registered at this authorization server',
    ],
    ['trailing slash', request([`${MCP}/`]), withScope, false, 'invalid_target: resource is not registered at this authorization server'],
    [
      'one of two unknown',
      request([API, UNREGISTERED]),
      withScope,
      false,
      'invalid_target: resource is not registered at this authorization server',
    ],
    [
      'unknown resource before a bad scope',
      request([UNREGISTERED], 'admin'),
      withScope,
      false,
      'invalid_target: resource is not registered at this authorization server',
    ],
    // A client registered with scope: limited to it, then to what the resources accept.
    ['default: registered ∩ offered', request([MCP]), withScope, false, `[${MCP}] tools`],
    ['default at two resources', request([MCP, API]), withScope, false, `[${MCP} ${API}] read write tools`],
    ['nothing in common: no scope', request([FILES]), withScope, false, `[${FILES}]`],
    ['a query is part of the identifier', request([FILES], 'files:read'), ['files:read'], false, `[${FILES}] files:read`],
    ['explicit, offered', request([MCP], 'tools'), withScope, false, `[${MCP}] tools`],
    ['union of the resources', request([MCP, API], 'tools read'), withScope, false, `[${MCP} ${API}] tools read`],
    ['repeats collapse', request([MCP, MCP], 'tools'), withScope, false, `[${MCP}] tools`],
    [
      'registered, not offered',
      request([MCP], 'read'),
      withScope,
      false,
      'invalid_target: scope not offered by the requested resources: read',
    ],
    [
      'offered, not registered',
      request([MCP], 'files:read'),
      withScope,
      false,
      'invalid_scope: scope not allowed for this client: files:read',
    ],
    [
      'neither: the registration speaks first',
      request([MCP], 'admin'),
      withScope,
      false,
      'invalid_scope: scope not allowed for this client: admin',
    ],
    [
      'bad syntax',
      request([MCP], 'a\\b'),
      withScope,
      false,
      'invalid_scope: scope is not a space-separated list of scope tokens (RFC 6749 section 3.3)',
    ],
    [
      'consent changes nothing for a registered scope',
      request([MCP], 'files:read'),
      withScope,
      true,
      'invalid_scope: scope not allowed for this client: files:read',
    ],
    // A client registered without scope: with consent, what the resources offer; without, nothing.
    ['no registration, consent: default', request([MCP]), [], true, `[${MCP}] tools files:read`],
    ['no registration, consent: offered', request([MCP, API], 'files:read write'), [], true, `[${MCP} ${API}] files:read write`],
    [
      'no registration, consent: not offered',
      request([MCP], 'write'),
      [],
      true,
      'invalid_target: scope not offered by the requested resources: write',
    ],
    ['no registration, no consent: default', request([MCP]), [], false, `[${MCP}]`],
    ['no registration, no consent: a scope', request([MCP], 'tools'), [], false, 'invalid_scope: scope not allowed for this client: tools'],
  ];
  for (const [name, req, registered, consents, expected] of cases) {
    t.equal(
      outcome(() => resolveNewTarget(req, registered, registry, consents)),
      expected,
      name,
    );
  }
});

t.test('a token from a grant (authorization_code, refresh_token): narrow, never widen (RFC 8707 §2.2)', async (t) => {
  const grant = { resources: [MCP, API], scope: ['tools', 'read'] };
  const cases: [string, TargetRequest, string][] = [
    ['no resource: the whole grant', request([]), `[${MCP} ${API}] tools read`],
    ['one of them: downscoped to what it accepts', request([API]), `[${API}] read`],
    ['the other', request([MCP]), `[${MCP}] tools`],
    ['a subset of the scope', request([MCP, API], 'read'), `[${MCP} ${API}] read`],
    ['registered but not granted', request([FILES]), 'invalid_target: resource was not part of this authorization grant'],
    ['unknown', request([UNREGISTERED]), 'invalid_target: resource was not part of this authorization grant'],
    ['one granted, one not', request([API, FILES]), 'invalid_target: resource was not part of this authorization grant'],
    ['malformed', request(['/mcp']), 'invalid_target: resource must be an absolute URI (RFC 8707 section 2)'],
    ['fragment', request([`${API}#x`]), 'invalid_target: resource must not include a fragment (RFC 8707 section 2)'],
    [
      'granted scope the resource does not accept',
      request([API], 'tools'),
      'invalid_target: scope not offered by the requested resources: tools',
    ],
    ['a scope never granted', request([API], 'read write'), 'invalid_scope: scope not allowed for this client: write'],
  ];
  for (const [name, req, expected] of cases)
    t.equal(
      outcome(() => narrowGrantTarget(req, grant, registry)),
      expected,
      name,
    );

  t.equal(
    outcome(() => narrowGrantTarget(request([]), { scope: ['read'] }, registry)),
    '[] read',
    'a record from before resource indicators',
  );
  t.equal(
    outcome(() => narrowGrantTarget(request([API]), { scope: ['read'] }, registry)),
    'invalid_target: resource was not part of this authorization grant',
    'which granted no resource',
  );
  t.equal(
    outcome(() => narrowGrantTarget(request([], 'read write'), { resources: [], scope: ['read'] }, registry)),
    'invalid_scope: scope not allowed for this client: write',
  );

  const withoutMcp = ResourceRegistry.fromEntries(RESOURCES.filter((r) => r.resource !== MCP));
  t.equal(
    outcome(() => narrowGrantTarget(request([MCP]), grant, withoutMcp)),
    'invalid_target: resource is no longer registered at this authorization server',
    'a resource the operator removed gets no new token',
  );
  t.equal(
    outcome(() => narrowGrantTarget(request([]), grant, withoutMcp)),
    'invalid_target: resource is no longer registered at this authorization server',
    'not even as part of the whole grant',
  );
  t.equal(
    outcome(() => narrowGrantTarget(request([API]), grant, withoutMcp)),
    `[${API}] read`,
    'the others still do',
  );
});
