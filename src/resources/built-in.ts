import { ADMIN_SCOPES } from '../oauth/admin-scopes.js';
import type { ResourceLookup } from './indicators.js';
import type { ProtectedResource } from './registry.js';

/**
 * The protected resources every server has, beside RESOURCES_FILE's: the admin API
 * (`{ISSUER}/admin/v1`, scopes `admin:read` and `admin:write`). A registry file cannot
 * redefine one (ResourceRegistry refuses its identifier), so no file entry shadows it.
 */

/** The admin API as a protected resource: `url` is its endpoint's URL, the tokens' `aud`. */
export function adminApiResource(url: string): ProtectedResource {
  return Object.freeze({
    resource: url,
    name: 'Admin API',
    scope: Object.freeze([...ADMIN_SCOPES]),
    accessTokenTtl: undefined,
    scopeDescriptions: new Map([
      [
        'admin:read',
        { en: 'Read the configuration of this authorization server', de: 'Die Konfiguration dieses Autorisierungsservers lesen' },
      ],
      [
        'admin:write',
        { en: 'Change the configuration of this authorization server', de: 'Die Konfiguration dieses Autorisierungsservers ändern' },
      ],
    ]),
  });
}

/** What reads the registered resources: the lookup of RFC 8707 and the list (discovery, consent page). */
export interface ResourceDirectory extends ResourceLookup {
  all(): ProtectedResource[];
}

/**
 * The file's resources (read at every call, so a reload shows at once) and the built-in
 * ones after them. The built-in identifiers are reserved: a file never holds them.
 */
export function withBuiltInResources(registered: ResourceDirectory, builtIn: readonly ProtectedResource[]): ResourceDirectory {
  const byId = new Map(builtIn.map((r) => [r.resource, r]));
  return {
    get: (resource) => byId.get(resource) ?? registered.get(resource),
    all: () => [...registered.all(), ...builtIn],
  };
}
