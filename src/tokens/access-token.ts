import { ServerError } from '../errors.js';
import type { Keystore } from '../keys/keystore.js';
import { formatScope } from '../oauth/scope.js';
import { signCompactJws } from './jws.js';
import { randomId } from './random-id.js';

/** RFC 9068 JWT access tokens. */

export interface AccessTokenRequest {
  readonly subject: string;
  readonly clientId: string;
  readonly scope: readonly string[];
  /** Seconds since the epoch when the user authenticated (RFC 9068 §2.2.1), if a user did. */
  readonly authTime?: number;
  /**
   * The grant (code, refresh family) the token comes from: revoking the grant makes
   * introspection report the token inactive. Not secret: it is the public half of the
   * grant's opaque tokens.
   */
  readonly grantId?: string;
}

export interface IssuedAccessToken {
  readonly token: string;
  readonly expiresIn: number;
  readonly jti: string;
}

export interface AccessTokenSettings {
  readonly issuer: string;
  readonly audience: string;
  readonly ttlSeconds: number;
}

export class AccessTokenIssuer {
  constructor(
    private readonly keystore: Keystore,
    private readonly settings: AccessTokenSettings,
    private readonly clock: () => number,
  ) {}

  async issue(request: AccessTokenRequest): Promise<IssuedAccessToken> {
    const iat = Math.floor(this.clock() / 1000);
    const key = this.keystore.signingKeyAt(iat);
    // Fail closed: with no key inside its signing window there is nothing valid to sign with.
    if (!key) throw new ServerError();
    const jti = randomId();
    const exp = iat + this.settings.ttlSeconds;
    const claims: Record<string, unknown> = {
      iss: this.settings.issuer,
      sub: request.subject,
      aud: this.settings.audience,
      client_id: request.clientId,
      ...(request.scope.length > 0 ? { scope: formatScope(request.scope) } : {}),
      ...(request.authTime !== undefined ? { auth_time: request.authTime } : {}),
      ...(request.grantId !== undefined ? { grant_id: request.grantId } : {}),
      iat,
      exp,
      jti,
    };
    // RFC 9068 §2.1: "JWT access tokens MUST include this media type in the "typ" header parameter".
    const token = signCompactJws({ alg: key.alg, kid: key.kid, typ: 'at+jwt' }, claims, key.alg, key.privateKey);
    return { token, expiresIn: exp - iat, jti };
  }
}
