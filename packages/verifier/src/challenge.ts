/**
 * The `WWW-Authenticate` challenges of a resource server: `Bearer` (RFC 6750 §3) and
 * `DPoP` (RFC 9449 §7.1), with RFC 9728's `resource_metadata` (§5.1) so that a client
 * holding no token, or a refused one, finds the metadata and from it the authorization server.
 */
export interface BearerChallenge {
  readonly realm: string;
  readonly error?: 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof';
  readonly errorDescription?: string;
  /** Scopes needed for the request (RFC 6750 §3: "scope" attribute). */
  readonly scope?: readonly string[];
  /** The URL of the resource's protected resource metadata (RFC 9728 §5.1). */
  readonly resourceMetadata?: string;
}

export interface DpopChallenge extends BearerChallenge {
  /** RFC 9449 §7.1: "algs: A space-delimited list of the JWS alg [...] values that the resource server supports". */
  readonly algs: readonly string[];
}

/** RFC 9110 §11.2 quoted-string: backslash-escape `"` and `\`. */
function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

function authParams(params: [string, string | undefined][]): string {
  return params
    .filter((param): param is [string, string] => param[1] !== undefined)
    .map(([name, value]) => `${name}=${quoted(value)}`)
    .join(', ');
}

function commonParams(challenge: BearerChallenge): [string, string | undefined][] {
  return [
    ['realm', challenge.realm],
    ['error', challenge.error],
    ['error_description', challenge.errorDescription],
    ['scope', challenge.scope?.length ? challenge.scope.join(' ') : undefined],
    ['resource_metadata', challenge.resourceMetadata],
  ];
}

export function bearerChallenge(challenge: BearerChallenge): string {
  return `Bearer ${authParams(commonParams(challenge))}`;
}

export function dpopChallenge(challenge: DpopChallenge): string {
  return `DPoP ${authParams([...commonParams(challenge), ['algs', challenge.algs.join(' ')]])}`;
}
