import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/**
 * Stateless DPoP nonces (RFC 9449 §8): a nonce is a time step and its HMAC under a key
 * derived (HKDF, its own purpose label) from SESSION_SECRET, so every instance with the
 * same secret issues and accepts the same nonces with no store round trip. A nonce of the
 * current or the previous step is accepted: it lives between one and two steps.
 */
export class DpopNonces {
  private readonly key: Buffer;

  constructor(
    secret: string | Buffer,
    private readonly stepSeconds: number,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'oauth2-token-service', 'dpop-nonce', 32));
  }

  /** The nonce to hand out now (§8.1: `nonce = 1*NQCHAR`; ours is base64url and a dot). */
  current(nowSeconds: number): string {
    const step = this.stepAt(nowSeconds);
    return `${step.toString(36)}.${this.mac(step)}`;
  }

  accepts(nonce: string, nowSeconds: number): boolean {
    const match = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{22})$/.exec(nonce);
    if (!match) return false;
    const step = parseInt(match[1] as string, 36);
    const now = this.stepAt(nowSeconds);
    if (step !== now && step !== now - 1) return false;
    const presented = Buffer.from(match[2] as string);
    const expected = Buffer.from(this.mac(step));
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  }

  private stepAt(nowSeconds: number): number {
    return Math.floor(nowSeconds / this.stepSeconds);
  }

  /** 128 bits of HMAC-SHA256 over the step. */
  private mac(step: number): string {
    return createHmac('sha256', this.key).update(`dpop-nonce:${step}`).digest().subarray(0, 16).toString('base64url');
  }
}
