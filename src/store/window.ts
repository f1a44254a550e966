/** Whole seconds until a window closes (at least 1: a refusal always asks the caller to wait). */
export function secondsLeft(milliseconds: number): number {
  return Math.max(1, Math.ceil(milliseconds / 1000));
}
