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

/** Items placed in a list: where (their position), and what is answered. */
export interface Placed<T> {
  readonly position: Position;
  readonly item: T;
}

/** The section of a merged list that follows the entries held in memory: what the store pages through by key. */
const TAIL = 2;

/**
 * One page of a list made of `held` (in memory, in position order: the file's and the
 * store's entries) and then a tail the store pages through by key (registrations,
 * federated users; each at position [2, key]); `tail(after)` reads the next batch after a
 * key, already filtered, and says where the following one starts.
 */
export async function pageWithTail<T>(
  held: readonly Placed<T>[],
  request: { readonly limit: number; readonly cursor?: string | undefined },
  tail: ((after: string | undefined) => Promise<{ items: { key: string; item: T }[]; next?: string | undefined }>) | undefined,
): Promise<Page<T>> {
  const unwrapped = (page: Page<Placed<T>>): Page<T> => ({
    items: page.items.map((placed) => placed.item),
    ...(page.next === undefined ? {} : { next: page.next }),
  });
  const head = pageOf(held, (placed) => placed.position, request);
  if (head.next !== undefined || tail === undefined) return unwrapped(head);
  const found = [...head.items];
  const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
  let from = after?.[0] === TAIL ? String(after[1]) : undefined;
  while (found.length <= request.limit) {
    const batch = await tail(from);
    found.push(...batch.items.map(({ key, item }) => ({ position: [TAIL, key], item })));
    if (batch.next === undefined) break;
    from = batch.next;
  }
  return unwrapped(pageOf(found, (placed) => placed.position, { limit: request.limit }));
}
