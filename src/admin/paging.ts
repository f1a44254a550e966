import { z } from 'zod';
import { AdminProblem } from './problems.js';

/**
 * Lists page with `limit` (1 to 500, default 50) and an opaque cursor: `{ "items": [...],
 * "next": "…" }`, `next` only when more may follow; the next page is asked for with
 * `cursor=<next>`. A cursor is the position of the last item listed (base64url of a small
 * JSON array), so a page never repeats or skips an item that was listed before it, however
 * many are added meanwhile. A cursor that was not made here is a 400 problem.
 */

export const PAGE_LIMIT = { min: 1, max: 500, default: 50 } as const;

/** The query parameters of every list: merge them into a route's query schema. */
export const pageQuery = {
  limit: z.coerce
    .number()
    .int()
    .min(PAGE_LIMIT.min)
    .max(PAGE_LIMIT.max)
    .default(PAGE_LIMIT.default)
    .describe(`How many items at most (${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}, default ${PAGE_LIMIT.default})`),
  cursor: z.string().max(1024).optional().describe("The previous page's `next`: where this page starts"),
};

/** A page's answer, for a route's response schema. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z
    .object({
      items: z.array(item),
      next: z.string().optional().describe('The cursor of the next page; absent on the last page'),
    })
    .strict();
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly next?: string;
}

/** A position in a list: compared element by element (numbers as numbers, strings as strings). */
export type Position = readonly (string | number)[];

export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

const POSITION = z
  .array(z.union([z.string().max(512), z.number().finite()]))
  .min(1)
  .max(8);

/** The position a cursor names; a 400 problem for anything this server did not write. */
export function decodeCursor(cursor: string): Position {
  const invalid = () =>
    new AdminProblem('validation', 'the cursor is not one this list gave', {
      errors: [{ field: 'cursor', problem: 'must be the `next` of the previous page, unchanged' }],
    });
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const parsed = POSITION.safeParse(value);
  if (!parsed.success) throw invalid();
  return parsed.data;
}

/** -1, 0 or 1; a position of another shape than `b` compares by its first differing element's type. */
export function comparePositions(a: Position, b: Position): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (typeof x !== typeof y) return typeof x === 'number' ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * One page of `items`, which are in the order of `positionOf` (ascending, each position
 * unique): those after the cursor's position, at most `limit`.
 */
export function pageOf<T>(
  items: readonly T[],
  positionOf: (item: T) => Position,
  request: { limit: number; cursor?: string | undefined },
): Page<T> {
  const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
  const rest = after === undefined ? items : items.filter((item) => comparePositions(positionOf(item), after) > 0);
  const page = rest.slice(0, request.limit);
  const last = page[page.length - 1];
  return rest.length > page.length && last !== undefined ? { items: page, next: encodeCursor(positionOf(last)) } : { items: page };
}
