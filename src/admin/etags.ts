import { createHash } from 'node:crypto';
import { AdminProblem } from './problems.js';

/**
 * Entity tags of admin entries (RFC 9110 §8.8.3) and `If-Match` (§13.1.1): a store entry's
 * tag is `"<kind>-<rev>"` (its revision, bumped by every write), a file entry's
 * `"file-<hash>"` of its document. A `PUT`, `PATCH` or `DELETE` with an `If-Match` that no
 * longer matches changes nothing and answers 412.
 */

/** The tag of a store entry: `"client-3"`. */
export function entryTag(kind: string, rev: number): string {
  return `"${kind}-${rev}"`;
}

/** The tag of a file entry: a digest of its document, so it changes when the file does. */
export function fileEntryTag(document: unknown): string {
  return documentTag('file', document);
}

/** `"<label>-<digest>"`: the tag of what has no revision (a file entry, a dynamic registration), by its content. */
export function documentTag(label: string, document: unknown): string {
  return `"${label}-${createHash('sha256').update(JSON.stringify(document)).digest('base64url').slice(0, 22)}"`;
}

/** A parsed If-Match: `*` (any current entry), or the strong tags listed. */
export type IfMatch = { readonly any: true } | { readonly any: false; readonly tags: readonly string[] };

const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7E\x80-\xFF]*"$/;

/**
 * RFC 9110 §13.1.1: `If-Match = "*" / #entity-tag`; undefined without the header. A value
 * that is neither is a 400 problem (a client should not be told its malformed tag
 * "mismatched"). Weak tags are kept, to fail the strong comparison.
 */
export function parseIfMatch(header: string | readonly string[] | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  const value = (typeof header === 'string' ? header : header.join(',')).trim();
  if (value === '*') return { any: true };
  const tags = value
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  if (tags.length === 0 || !tags.every((tag) => ENTITY_TAG.test(tag)))
    throw new AdminProblem('validation', 'If-Match must be "*" or entity tags as ETag gave them', {
      errors: [{ field: 'If-Match', problem: 'must be "*" or a list of quoted entity tags' }],
    });
  return { any: false, tags };
}

/**
 * Whether a change may proceed: no If-Match, `*` with a current entry, or a listed tag
 * equal to the current one. §13.1.1: "An origin server MUST use the strong comparison
 * function when comparing entity-tags for If-Match", so a weak tag never matches.
 */
export function ifMatchHolds(ifMatch: IfMatch | undefined, currentTag: string | undefined): boolean {
  if (ifMatch === undefined) return true;
  if (currentTag === undefined) return false;
  return ifMatch.any || ifMatch.tags.some((tag) => !tag.startsWith('W/') && tag === currentTag);
}

/** Throws the 412 problem unless `ifMatchHolds`. */
export function requireIfMatch(ifMatch: IfMatch | undefined, currentTag: string | undefined): void {
  if (!ifMatchHolds(ifMatch, currentTag))
    throw new AdminProblem('precondition-failed', 'If-Match does not name the current version of this entry: read it again');
}

/**
 * The revision a change of the store entry of `kind` must find (the store checks it in the
 * same step as the write): undefined without If-Match or with `*`; with tags that name no
 * revision of this kind, the 412 problem (nothing could match).
 */
export function requiredRevision(ifMatch: IfMatch | undefined, kind: string): number | undefined {
  if (ifMatch === undefined || ifMatch.any) return undefined;
  const rev = expectedRevision(ifMatch, kind);
  if (rev === undefined) requireIfMatch(ifMatch, undefined);
  return rev;
}

/**
 * The revision an If-Match names for a store entry of `kind` (for the store's atomic check
 * of the expected revision), undefined when it names none of this kind or says `*`.
 */
export function expectedRevision(ifMatch: IfMatch | undefined, kind: string): number | undefined {
  if (ifMatch === undefined || ifMatch.any) return undefined;
  for (const tag of ifMatch.tags) {
    const match = /^"([a-z_]+)-(\d{1,15})"$/.exec(tag);
    if (match && match[1] === kind) return Number(match[2]);
  }
  return undefined;
}
