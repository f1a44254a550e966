import { z } from 'zod';

/** Field schemas for environment variables; each message names its variable. */

export const integer = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .pipe(z.number().int().min(min, `${name} must be at least ${min}`).max(max, `${name} must be at most ${max}`));

/** `true` or `false`, default false. */
export const flag = (name: string) =>
  z
    .enum(['true', 'false'], { message: `${name} must be true or false` })
    .default('false')
    .transform((value) => value === 'true');
