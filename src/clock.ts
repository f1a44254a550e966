/**
 * Time, injected wherever it matters so tests control it: milliseconds since the epoch,
 * as `Date.now` counts. JWT claims and the key lifecycle count whole seconds (RFC 7519
 * §2, NumericDate): `nowSeconds` is the one place that converts.
 */
export type Clock = () => number;

export const systemClock: Clock = Date.now;

export function nowSeconds(clock: Clock = systemClock): number {
  return toSeconds(clock());
}

export function toSeconds(milliseconds: number): number {
  return Math.floor(milliseconds / 1000);
}
