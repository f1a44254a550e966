/**
 * RFC 9728 (OAuth 2.0 Protected Resource Metadata), pure: the document a resource server
 * publishes so clients (MCP clients among them) find its authorization server, and the
 * well-known URL it is published at. No imports: resource servers load it with the verifier.
 */

export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

export interface ProtectedResourceMetadataOptions {
  /** The resource identifier: what clients send as `resource` and find in the token's `aud`. */
  readonly resource: string;
  /** Issuer identifiers of the authorization servers that issue tokens for it. */
  readonly authorizationServers: readonly string[];
  /** The scopes the resource understands (RFC 9728 §2: RECOMMENDED). */
  readonly scopesSupported?: readonly string[];
  /** A human-readable name (RFC 9728 §2: RECOMMENDED). */
  readonly resourceName?: string;
  /** A URL of a page with documentation for developers. */
  readonly resourceDocumentation?: string;
}

/** The metadata document (RFC 9728 §2), with the members we publish. */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported?: readonly string[];
  readonly bearer_methods_supported: readonly ['header'];
  readonly resource_name?: string;
  readonly resource_documentation?: string;
}

/**
 * Throws a TypeError unless `resource` can identify a protected resource: an absolute
 * http(s) URL without fragment. RFC 9728 §1.2: "a URL that uses the https scheme and has
 * no fragment component"; http is accepted for local development.
 */
export function assertResourceIdentifier(resource: string): void {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    throw new TypeError(`the resource identifier must be an absolute URL, got "${resource}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new TypeError(`the resource identifier must be an https URL, got "${resource}"`);
  if (resource.includes('#')) throw new TypeError(`the resource identifier must not have a fragment, got "${resource}"`);
}

/**
 * Where the metadata of `resource` is published. RFC 9728 §3.1: the well-known suffix is
 * "inserted into the resource identifier between the host component and the path and/or
 * query components", and "any terminating slash (/) following the host component MUST be
 * removed before inserting".
 *   https://mcp.example.com/mcp → https://mcp.example.com/.well-known/oauth-protected-resource/mcp
 */
export function protectedResourceMetadataUrl(resource: string): string {
  assertResourceIdentifier(resource);
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}${PROTECTED_RESOURCE_WELL_KNOWN}${path}${url.search}`;
}

/** The metadata document of a resource (RFC 9728 §2), served at `protectedResourceMetadataUrl(resource)`. */
export function protectedResourceMetadata(options: ProtectedResourceMetadataOptions): ProtectedResourceMetadata {
  assertResourceIdentifier(options.resource);
  return {
    // RFC 9728 §3.3: the resource value "MUST be identical to the protected resource's
    // resource identifier value into which the well-known URI path suffix was inserted".
    resource: options.resource,
    authorization_servers: [...options.authorizationServers],
    ...(options.scopesSupported ? { scopes_supported: [...options.scopesSupported] } : {}),
    // The verifier reads the token from the Authorization header only (RFC 6750 §2.1).
    bearer_methods_supported: ['header'],
    ...(options.resourceName !== undefined ? { resource_name: options.resourceName } : {}),
    ...(options.resourceDocumentation !== undefined ? { resource_documentation: options.resourceDocumentation } : {}),
  };
}
