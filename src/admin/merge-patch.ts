/**
 * JSON Merge Patch (RFC 7396): `PATCH` with `application/merge-patch+json`. Pure: returns
 * the patched document and changes neither argument. §2: a member whose value is `null`
 * is removed, an object is merged member by member, anything else replaces the target.
 */

export const MERGE_PATCH_MEDIA_TYPE = 'application/merge-patch+json';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 7396 §2 MergePatch(Target, Patch). */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  // §2: "if Target is not an Object: Target = {}".
  const merged = new Map<string, unknown>(isObject(target) ? Object.entries(target) : []);
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) merged.delete(name);
    else merged.set(name, mergePatch(merged.get(name), value));
  }
  // Object.fromEntries defines own members: a "__proto__" member stays a member.
  return Object.fromEntries(merged);
}
