import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { ResourceRegistry, ResourcesFileError } from '../../src/resources/registry.js';
import { tempDir } from '../helpers/keys.js';
import { FILES, MCP, RESOURCES } from '../helpers/resource-fixtures.js';

t.test('ResourceRegistry', async (t) => {
  t.test('reads the entries; defaults', async (t) => {
    const registry = ResourceRegistry.fromEntries([...RESOURCES, { resource: 'http://localhost:4000/api' }]);
    t.same(registry.get(MCP), {
      resource: MCP,
      name: 'Example <MCP>',
      scope: ['tools', 'files:read'],
      accessTokenTtl: 900,
      scopeDescriptions: new Map(),
    });
    t.same(registry.get(FILES), {
      resource: FILES,
      name: undefined,
      scope: ['files:read', 'files:write'],
      accessTokenTtl: 600,
      scopeDescriptions: new Map(),
    });
    t.same(
      registry.get('http://localhost:4000/api'),
      { resource: 'http://localhost:4000/api', name: undefined, scope: [], accessTokenTtl: undefined, scopeDescriptions: new Map() },
      'no scope, no name, no TTL of its own; http for local development',
    );
    t.equal(registry.get(`${MCP}/`), undefined, 'exact string: a trailing slash is another resource');
    t.equal(registry.all().length, 4);
    t.ok(Object.isFrozen(registry.get(MCP)));
  });

  t.test('scope_descriptions: a text, or texts by language, for scopes the resource lists', async (t) => {
    const registry = ResourceRegistry.fromEntries([
      {
        resource: MCP,
        scope: 'tools files:read',
        scope_descriptions: { tools: 'Use the tools', 'files:read': { en: 'Read your files', de: 'Ihre Dateien lesen' } },
      },
    ]);
    t.same(
      registry.get(MCP)?.scopeDescriptions,
      new Map<string, unknown>([
        ['tools', 'Use the tools'],
        ['files:read', { en: 'Read your files', de: 'Ihre Dateien lesen' }],
      ]),
    );
    const refused: [unknown, string][] = [
      [
        { resource: MCP, scope: 'tools', scope_descriptions: { admin: 'Everything' } },
        'scope_descriptions.admin: describes a scope this resource does not list in "scope"',
      ],
      [
        { resource: MCP, scope: 'tools', scope_descriptions: { tools: '' } },
        'scope_descriptions.tools: Too small: expected string to have >=1 characters',
      ],
      [{ resource: MCP, scope: 'tools', scope_descriptions: { tools: {} } }, 'scope_descriptions.tools: must name at least one language'],
      [
        { resource: MCP, scope: 'tools', scope_descriptions: { tools: { English: 'x' } } },
        'scope_descriptions.tools.English: must be a language tag such as "en" or "de"',
      ],
      [
        { resource: MCP, scope: 'tools', scope_descriptions: { tools: ['x'] } },
        'scope_descriptions.tools: must be a text, or an object of texts by language',
      ],
      [
        { resource: MCP, scope: 'tools', scope_descriptions: { tools: 'a\u0007b' } },
        'scope_descriptions.tools: must not contain control characters',
      ],
    ];
    for (const [entry, line] of refused) {
      t.throws(() => ResourceRegistry.fromEntries([entry]), { message: `resources: resource "${MCP}": ${line}` }, line);
    }
  });

  t.test('a bad entry is refused, one line per problem, naming the resource and the field', async (t) => {
    const cases: [unknown, string[]][] = [
      [{ resource: '/mcp' }, ['resource "/mcp": resource: must be an absolute URI']],
      [{ resource: 'urn:example:api' }, ['resource "urn:example:api": resource: must start with https:// (or http://)']],
      [{ resource: 'HTTPS://mcp.example.com/' }, ['resource "HTTPS://mcp.example.com/": resource: must start with https:// (or http://)']],
      [
        { resource: 'https://mcp.example.com/#x' },
        ['resource "https://mcp.example.com/#x": resource: must not have a fragment (RFC 8707 §2)'],
      ],
      [{ resource: 'https://MCP.example.com/' }, ['resource "https://MCP.example.com/": resource: the host must be in lowercase']],
      [
        { resource: 'https://user:pw@mcp.example.com/' },
        ['resource "https://user:pw@mcp.example.com/": resource: must not contain user information'],
      ],
      [
        { resource: 'https://mcp.example.com/a b' },
        ['resource "https://mcp.example.com/a b": resource: must be printable ASCII without spaces'],
      ],
      [{ resource: MCP, scope: 'a  b' }, [`resource "${MCP}": scope: must be space-separated scope tokens (RFC 6749 §3.3)`]],
      [{ resource: MCP, access_token_ttl: 0 }, [`resource "${MCP}": access_token_ttl: Too small: expected number to be >=1`]],
      [{ resource: MCP, access_token_ttl: 90_000 }, [`resource "${MCP}": access_token_ttl: Too big: expected number to be <=86400`]],
      [{ resource: MCP, access_token_ttl: 1.5 }, [`resource "${MCP}": access_token_ttl: Invalid input: expected int, received number`]],
      [{ resource: MCP, name: '' }, [`resource "${MCP}": name: Too small: expected string to have >=1 characters`]],
      [{ resource: MCP, audience: 'x' }, [`resource "${MCP}": entry: Unrecognized key: "audience"`]],
      [{ name: 'no uri' }, ['resource #1: resource: Invalid input: expected string, received undefined']],
      [
        { resource: 'https://x.example/#f', scope: 'a\\b', access_token_ttl: -1 },
        [
          'resource "https://x.example/#f": resource: must not have a fragment (RFC 8707 §2)',
          'resource "https://x.example/#f": scope: must be space-separated scope tokens (RFC 6749 §3.3)',
          'resource "https://x.example/#f": access_token_ttl: Too small: expected number to be >=1',
        ],
      ],
    ];
    for (const [entry, lines] of cases) {
      t.throws(() => ResourceRegistry.fromEntries([entry]), new ResourcesFileError(lines.map((l) => `resources: ${l}`).join('\n')));
    }
    t.throws(() => ResourceRegistry.fromEntries([{ resource: MCP }, { resource: 'ftp://x' }, { resource: MCP }]), {
      message: [
        'resources: resource "ftp://x": resource: must start with https:// (or http://)',
        `resources: resource "${MCP}": resource: registered twice`,
      ].join('\n'),
      name: 'ResourcesFileError',
    });
  });

  t.test('load() reads RESOURCES_FILE and names the file on errors', async (t) => {
    const dir = await tempDir(t);
    const file = join(dir, 'resources.json');
    await writeFile(file, JSON.stringify({ resources: RESOURCES }));
    t.equal((await ResourceRegistry.load(file)).get(MCP)?.name, 'Example <MCP>');
    await writeFile(file, JSON.stringify({ resources: [{ resource: 'https://x.example/#f' }] }));
    await t.rejects(ResourceRegistry.load(file), {
      message: `${file}: resource "https://x.example/#f": resource: must not have a fragment (RFC 8707 §2)`,
    });
    await writeFile(file, '{"resources": [');
    await t.rejects(ResourceRegistry.load(file), { message: new RegExp(`^${file}: not valid JSON`) });
    await writeFile(file, '{"clients": []}');
    await t.rejects(ResourceRegistry.load(file), { message: `${file}: expected {"resources": [...]}` });
    await t.rejects(ResourceRegistry.load(join(dir, 'missing.json')), { message: /missing\.json: no such file$/ });
  });
});
