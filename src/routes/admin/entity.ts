import { z } from 'zod';
import type { AdminAnswer } from '../../admin/routes.js';

/** What the entity plugins of the admin API share: a merge patch body, an entry answered with its ETag. */

/** A PATCH body: RFC 7396 §2, a member replaces, `null` removes, an object merges; the result is validated as a whole. */
export const MergePatchSchema = z
  .record(z.string(), z.unknown())
  .describe('A JSON Merge Patch (RFC 7396): a member replaces, null removes, an object is merged member by member');

/** An entry as answered, with the ETag of what was read or written. */
export function withEtag(status: number, answer: { readonly view: unknown; readonly etag: string }): AdminAnswer {
  return { status, body: answer.view, etag: answer.etag };
}
