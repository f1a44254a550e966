import { z } from 'zod';
import { parseScope } from '../oauth/scope.js';
import { type EntryNaming, parseEntries, readEntries, Registry } from '../registry/registry.js';
import { type ScopeDescription, scopeDescriptionsSchema } from './scope-descriptions.js';

/**
 * Protected resources (RFC 8707), as registered by the operator in RESOURCES_FILE: the
 * values clients may send as `resource`, the scopes each accepts, and what the consent
 * page calls it. Immutable; a reload builds a new registry.
 */

const PRINTABLE = /^[\x21-\x7E]+$/;
const SCHEME_AND_HOST = /^(https?):\/\/(?:[^@/?#]*@)?([^/?#]*)/;

/**
 * A resource identifier as we register it: an absolute http(s) URI without fragment,
 * compared with what clients send by exact string. RFC 8707 §2: "Its value MUST be an
 * absolute URI [...]. The URI MUST NOT include a fragment component. It SHOULD NOT include
 * a query component, but it is recognized that there are cases that make a query
 * component a useful and necessary part of the resource parameter": a query is allowed.
 */
const resourceUri = z.string().superRefine((value, ctx) => {
  const problem = (message: string) => ctx.addIssue({ code: 'custom', message });
  if (!PRINTABLE.test(value)) return problem('must be printable ASCII without spaces');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return problem('must be an absolute URI');
  }
  const parts = SCHEME_AND_HOST.exec(value);
  if (!parts || (url.protocol !== 'https:' && url.protocol !== 'http:')) return problem('must start with https:// (or http://)');
  if (value.includes('#')) problem('must not have a fragment (RFC 8707 §2)');
  if (url.username !== '' || url.password !== '') problem('must not contain user information');
  // Scheme and host are case-insensitive (RFC 3986 §6.2.2.1) and clients send them in
  // lowercase (the MCP canonical form); comparison is by exact string, so register them so.
  if ((parts[2] ?? '') !== (parts[2] ?? '').toLowerCase()) problem('the host must be in lowercase');
});

/** A resource entry: of RESOURCES_FILE, of the store, of the admin API (one validation function). */
export const ResourceSchema = z
  .object({
    resource: resourceUri,
    name: z.string().min(1).max(200).optional(),
    scope: z
      .string()
      .default('')
      .refine((s) => s === '' || parseScope(s) !== undefined, 'must be space-separated scope tokens (RFC 6749 §3.3)'),
    access_token_ttl: z.number().int().min(1).max(86_400).optional(),
    scope_descriptions: scopeDescriptionsSchema.optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    const offered = new Set(r.scope === '' ? [] : (parseScope(r.scope) ?? []));
    for (const scope of Object.keys(r.scope_descriptions ?? {})) {
      if (!offered.has(scope))
        ctx.addIssue({
          code: 'custom',
          path: ['scope_descriptions', scope],
          message: 'describes a scope this resource does not list in "scope"',
        });
    }
  });

export interface ProtectedResource {
  /** The resource indicator (RFC 8707 §2), and the `aud` of the tokens issued for it. */
  readonly resource: string;
  /** What the consent page calls it; undefined: the page shows the URI alone. */
  readonly name: string | undefined;
  /** The scopes this resource accepts. */
  readonly scope: readonly string[];
  /** Caps the lifetime of its access tokens (ACCESS_TOKEN_TTL caps it too); undefined: ACCESS_TOKEN_TTL. */
  readonly accessTokenTtl: number | undefined;
  /** What the consent page says each scope lets a client do (scope_descriptions). */
  readonly scopeDescriptions: ReadonlyMap<string, ScopeDescription>;
}

export type ResourceMetadata = z.input<typeof ResourceSchema>;

export class ResourcesFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResourcesFileError';
  }
}

export interface ResourceFileOptions {
  /** Resource identifiers the server defines itself (the admin API): refused in the file. */
  readonly reserved?: readonly string[] | undefined;
}

const RESOURCE_ENTRIES: EntryNaming = { member: 'resources', noun: 'resource', keyField: 'resource' };

export class ResourceRegistry extends Registry<ProtectedResource> {
  protected constructor(resources: readonly ProtectedResource[], documents: readonly unknown[] = []) {
    super(resources.map((r, i) => [r.resource, r, documents[i]] as const));
  }

  /** The resource registered under exactly this string. */
  get(resource: string): ProtectedResource | undefined {
    return this.entry(resource);
  }

  all(): ProtectedResource[] {
    return this.entries();
  }

  /**
   * Validates entries; throws ResourcesFileError with one line per problem, naming the
   * resource and the field. `reserved`: the identifiers of the built-in resources (the admin
   * API), which no entry may redefine.
   */
  static fromEntries(entries: readonly unknown[], source = 'resources', options: ResourceFileOptions = {}): ResourceRegistry {
    const { parsed, problems } = parseEntries(entries, ResourceSchema, RESOURCE_ENTRIES, source);
    const resources: ProtectedResource[] = [];
    const documents: unknown[] = [];
    for (const { name, value, document } of parsed) {
      if (options.reserved?.includes(value.resource)) {
        problems.push(`${source}: ${name}: resource: is this server's own admin API, built in: it cannot be redefined`);
        continue;
      }
      if (resources.some((r) => r.resource === value.resource)) {
        problems.push(`${source}: ${name}: resource: registered twice`);
        continue;
      }
      resources.push(
        Object.freeze({
          resource: value.resource,
          name: value.name,
          scope: Object.freeze(value.scope === '' ? [] : (parseScope(value.scope) ?? [])),
          accessTokenTtl: value.access_token_ttl,
          scopeDescriptions: new Map(Object.entries(value.scope_descriptions ?? {})),
        }),
      );
      documents.push(document);
    }
    if (problems.length > 0) throw new ResourcesFileError(problems.join('\n'));
    return new ResourceRegistry(resources, documents);
  }

  static async load(file: string, options: ResourceFileOptions = {}): Promise<ResourceRegistry> {
    return ResourceRegistry.fromEntries(
      await readEntries(file, RESOURCE_ENTRIES, (message) => new ResourcesFileError(message)),
      file,
      options,
    );
  }
}
