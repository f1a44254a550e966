/**
 * The `WWW-Authenticate: Bearer` challenge of a resource server (RFC 6750 §3), with RFC
 * 9728's `resource_metadata` (§5.1) so that a client holding no token, or a refused one,
 * finds the metadata and from it the authorization server.
 */
export interface BearerChallenge {
  readonly realm: string;
  readonly error?: 'invalid_token' | 'insufficient_scope';
  readonly errorDescription?: string;
  /** Scopes needed for the request (RFC 6750 §3: "scope" attribute). */
  readonly scope?: readonly string[];
  /** The URL of the resource's protected resource metadata (RFC 9728 §5.1). */
  readonly resourceMetadata?: string;
}

/** RFC 9110 §11.2 quoted-string: backslash-escape `"` and `\`. */
function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

export function bearerChallenge(challenge: BearerChallenge): string {
  const params: [string, string | undefined][] = [
    ['realm', challenge.realm],
    ['error', challenge.error],
    ['error_description', challenge.errorDescription],
    ['scope', challenge.scope?.length ? challenge.scope.join(' ') : undefined],
    ['resource_metadata', challenge.resourceMetadata],
  ];
  return `Bearer ${params
    .filter((param): param is [string, string] => param[1] !== undefined)
    .map(([name, value]) => `${name}=${quoted(value)}`)
    .join(', ')}`;
}
