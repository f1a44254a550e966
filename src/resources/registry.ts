import { z } from 'zod';
import { parseScope } from '../oauth/scope.js';
import { readRegistryEntries } from '../registry/file.js';
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

const ResourceSchema = z
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

export class ResourceRegistry {
  private byUri: ReadonlyMap<string, ProtectedResource>;

  protected constructor(resources: readonly ProtectedResource[]) {
    this.byUri = new Map(resources.map((r) => [r.resource, r]));
  }

  /** The resource registered under exactly this string. */
  get(resource: string): ProtectedResource | undefined {
    return this.byUri.get(resource);
  }

  all(): ProtectedResource[] {
    return [...this.byUri.values()];
  }

  /** Validates entries; throws ResourcesFileError with one line per problem, naming the resource and the field. */
  static fromEntries(entries: readonly unknown[], source = 'resources'): ResourceRegistry {
    const resources: ProtectedResource[] = [];
    const problems: string[] = [];
    entries.forEach((entry, index) => {
      const uri = (entry as { resource?: unknown } | null)?.resource;
      const name = typeof uri === 'string' ? `resource "${uri}"` : `resource #${index + 1}`;
      const parsed = ResourceSchema.safeParse(entry);
      if (!parsed.success) {
        problems.push(...parsed.error.issues.map((i) => `${source}: ${name}: ${i.path.join('.') || 'entry'}: ${i.message}`));
        return;
      }
      if (resources.some((r) => r.resource === parsed.data.resource)) {
        problems.push(`${source}: ${name}: resource: registered twice`);
        return;
      }
      const { resource, scope } = parsed.data;
      resources.push(
        Object.freeze({
          resource,
          name: parsed.data.name,
          scope: Object.freeze(scope === '' ? [] : (parseScope(scope) ?? [])),
          accessTokenTtl: parsed.data.access_token_ttl,
          scopeDescriptions: new Map(Object.entries(parsed.data.scope_descriptions ?? {})),
        }),
      );
    });
    if (problems.length > 0) throw new ResourcesFileError(problems.join('\n'));
    return new ResourceRegistry(resources);
  }

  static async load(file: string): Promise<ResourceRegistry> {
    return ResourceRegistry.fromEntries(await readRegistryEntries(file, 'resources', (message) => new ResourcesFileError(message)), file);
  }

  /** Takes over the resources of `next` in one assignment (ReloadableResources). */
  protected adopt(next: ResourceRegistry): void {
    this.byUri = next.byUri;
  }
}

/** The resources the server reads, replaced as a whole when RESOURCES_FILE is reloaded (SIGHUP). */
export class ReloadableResources extends ResourceRegistry {
  static holding(resources: ResourceRegistry): ReloadableResources {
    const reloadable = new ReloadableResources([]);
    reloadable.adopt(resources);
    return reloadable;
  }

  replace(next: ResourceRegistry): void {
    this.adopt(next);
  }
}
