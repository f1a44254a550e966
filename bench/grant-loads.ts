import type { GrantLoad } from './load.js';

/**
 * The three grants the bench compares, as load definitions both servers answer: the same
 * form bodies, client_secret_basic, the same resource (aud) and scope.
 */

export const FORM_HEADERS = { 'content-type': 'application/x-www-form-urlencoded' };

export interface BenchClient {
  readonly tokenUrl: string;
  readonly authorization: string;
  readonly redirectUri: string;
  /** The PKCE verifier every minted code's challenge was made from. */
  readonly codeVerifier: string;
}

const headersOf = (client: BenchClient) => ({ ...FORM_HEADERS, authorization: client.authorization });

export function clientCredentialsLoad(client: BenchClient, scope: string): GrantLoad {
  const body = `grant_type=client_credentials&scope=${scope}`;
  return { url: client.tokenUrl, headers: headersOf(client), nextBody: () => body };
}

/** Redeems each code once, in order, whatever connection asks next. */
export function codeRedemptionLoad(client: BenchClient, codes: string[]): GrantLoad {
  const tail = `&redirect_uri=${encodeURIComponent(client.redirectUri)}&code_verifier=${client.codeVerifier}`;
  let next = 0;
  return {
    url: client.tokenUrl,
    headers: headersOf(client),
    nextBody: () => (next < codes.length ? `grant_type=authorization_code&code=${codes[next++]}${tail}` : undefined),
  };
}

/** Stands in for a token when none is left: answered with an error, which fails the bench. */
const NO_TOKEN_LEFT = 'none-left';

/**
 * Refresh rotation as clients do it: each family is refreshed with the refresh token of
 * its last answer, one request at a time (a family never presents a rotated token, which
 * would revoke it). Tokens ready to use wait in a queue: a request takes one, its answer
 * puts the successor back. (autocannon clears a connection's context after every request,
 * so families cannot be tied to connections.) `seeds` should outnumber the connections.
 */
export function refreshRotationLoad(client: BenchClient, seeds: string[]): GrantLoad {
  const ready = [...seeds];
  return {
    url: client.tokenUrl,
    headers: headersOf(client),
    nextBody: () => `grant_type=refresh_token&refresh_token=${ready.shift() ?? NO_TOKEN_LEFT}`,
    onResponse(status, body) {
      if (status === 200) ready.push((JSON.parse(body) as { refresh_token: string }).refresh_token);
    },
  };
}
