import { z } from 'zod';
import { type Clock, nowSeconds } from '../clock.js';
import type { Endpoints } from '../endpoints.js';
import { parseScope } from '../oauth/scope.js';
import { CONSOLE_CLIENT_ID, consoleRedirectUri } from './client.js';
import type { SignInTransaction } from './sign-in.js';

/**
 * The console's requests to our own token endpoint: the code of its sign-in redeemed (with
 * the PKCE verifier, and the ID token's `nonce` checked), and its refresh token used when the
 * access token runs out. The endpoint is reached in process (the route layer hands in how),
 * with client_secret_basic, so the console passes every check any client passes.
 */

/** One POST to the token endpoint, in process: its status and parsed JSON answer. */
export interface TokenEndpoint {
  post(form: Readonly<Record<string, string>>, authorization: string): Promise<{ readonly status: number; readonly body: unknown }>;
}

/** The token endpoint answered with a server error (its store is down, no key signs): nothing to show but a retry. */
export class TokenEndpointUnavailable extends Error {
  constructor(status: number) {
    super(`the token endpoint answered ${status}`);
    this.name = 'TokenEndpointUnavailable';
  }
}

/** What the console keeps of a token response (sealed in its cookie). */
export interface ConsoleTokenSet {
  readonly accessToken: string;
  /** When the access token expires, in seconds since the epoch. */
  readonly expiresAt: number;
  readonly refreshToken?: string | undefined;
  /** The scope granted: without the admin scopes, the person is no administrator. */
  readonly scope: readonly string[];
}

const TokenAnswer = z.object({
  access_token: z.string().min(1),
  expires_in: z.number().int().positive(),
  refresh_token: z.string().min(1).optional(),
  scope: z.string().optional(),
  id_token: z.string().optional(),
});

export interface ConsoleTokenDependencies {
  readonly endpoints: Endpoints;
  /** The console's client secret (consoleClientSecret). */
  readonly secret: string;
  readonly endpoint: TokenEndpoint;
  readonly idTokens: { verifyFor(token: string, clientId: string): Promise<Record<string, unknown> | undefined> };
  readonly clock: Clock;
}

export class ConsoleTokens {
  private readonly authorization: string;

  constructor(private readonly deps: ConsoleTokenDependencies) {
    // RFC 6749 §2.3.1: client id and secret form-encoded, then Basic.
    const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
    this.authorization = `Basic ${Buffer.from(`${encode(CONSOLE_CLIENT_ID)}:${encode(deps.secret)}`).toString('base64')}`;
  }

  /** Redeems the sign-in's code: the person who signed in and the tokens; undefined when refused or the ID token does not match. */
  async redeem(code: string, transaction: SignInTransaction): Promise<{ sub: string; tokens: ConsoleTokenSet } | undefined> {
    const answer = await this.request({
      grant_type: 'authorization_code',
      code,
      redirect_uri: consoleRedirectUri(this.deps.endpoints),
      code_verifier: transaction.verifier,
    });
    if (!answer?.id_token) return undefined;
    const claims = await this.deps.idTokens.verifyFor(answer.id_token, CONSOLE_CLIENT_ID);
    // OpenID Connect Core §3.1.3.7: "If a nonce value was sent in the Authentication Request, a
    // nonce Claim MUST be present and its value checked to verify that it is the same value".
    if (!claims || claims.nonce !== transaction.nonce || typeof claims.sub !== 'string') return undefined;
    return { sub: claims.sub, tokens: this.tokenSet(answer) };
  }

  /** A fresh access token (and the refresh token that replaces the one used); undefined when the grant is gone. */
  async refresh(refreshToken: string): Promise<ConsoleTokenSet | undefined> {
    const answer = await this.request({ grant_type: 'refresh_token', refresh_token: refreshToken });
    return answer && this.tokenSet(answer);
  }

  private async request(form: Record<string, string>): Promise<z.output<typeof TokenAnswer> | undefined> {
    const { status, body } = await this.deps.endpoint.post(form, this.authorization);
    if (status >= 500) throw new TokenEndpointUnavailable(status);
    if (status !== 200) return undefined;
    const parsed = TokenAnswer.safeParse(body);
    return parsed.success ? parsed.data : undefined;
  }

  private tokenSet(answer: z.output<typeof TokenAnswer>): ConsoleTokenSet {
    return {
      accessToken: answer.access_token,
      expiresAt: nowSeconds(this.deps.clock) + answer.expires_in,
      refreshToken: answer.refresh_token,
      scope: answer.scope === undefined ? [] : (parseScope(answer.scope) ?? []),
    };
  }
}
