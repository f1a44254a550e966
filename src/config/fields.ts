import { z } from 'zod';

/** Field schemas for environment variables; each message names its variable. */

/** What a number counts, said in its messages (`ACCESS_TOKEN_TTL must be a whole number of seconds`); none for ports and counts. */
export type Unit = 'seconds' | 'milliseconds' | 'bytes';

/** `60 seconds`, `1 second`, or the bare number without a unit. */
const amount = (value: number, unit: Unit | undefined) =>
  unit === undefined ? `${value}` : `${value} ${value === 1 ? unit.slice(0, -1) : unit}`;

export const integer = (name: string, min: number, max: number, unit?: Unit) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number${unit === undefined ? '' : ` of ${unit}`}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, `${name} must be at least ${amount(min, unit)}`)
        .max(max, `${name} must be at most ${amount(max, unit)}`),
    );

/** `true` or `false`, default false. */
export const flag = (name: string) =>
  z
    .enum(['true', 'false'], { message: `${name} must be true or false` })
    .default('false')
    .transform((value) => value === 'true');
