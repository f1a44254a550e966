import { z } from 'zod';

/**
 * What the consent page says a scope lets a client do, written by the operator per
 * resource in RESOURCES_FILE: one text, or one per language (`{"en": "...", "de": "..."}`).
 */

const LANGUAGE_TAG = /^[a-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;
const text = z
  .string()
  .min(1)
  .max(200)
  .refine((value) => !/\p{Cc}/u.test(value), 'must not contain control characters');

const textsByLanguage = z.record(z.string(), text).superRefine((texts, ctx) => {
  const tags = Object.keys(texts);
  if (tags.length === 0) ctx.addIssue({ code: 'custom', message: 'must name at least one language' });
  for (const tag of tags.filter((t) => !LANGUAGE_TAG.test(t)))
    ctx.addIssue({ code: 'custom', path: [tag], message: 'must be a language tag such as "en" or "de"' });
});

/** One text or texts by language, each checked by its own rules (a union would report only "Invalid input"). */
const describedScope = z.unknown().transform((value, ctx) => {
  if (typeof value !== 'string' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    ctx.addIssue({ code: 'custom', message: 'must be a text, or an object of texts by language' });
    return z.NEVER;
  }
  const parsed = (typeof value === 'string' ? text : textsByLanguage).safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    return z.NEVER;
  }
  return parsed.data as ScopeDescription;
});

export const scopeDescriptionsSchema = z.record(z.string(), describedScope);

/** A scope's description: one text for every language, or texts by language tag. */
export type ScopeDescription = string | Readonly<Record<string, string>>;

/** The text for `language` (its primary subtag), else English, else the first one written. */
export function describedIn(description: ScopeDescription, language: string): string {
  if (typeof description === 'string') return description;
  const primary = (tag: string) => tag.split('-', 1)[0]?.toLowerCase();
  const entries = Object.entries(description);
  return (entries.find(([tag]) => primary(tag) === language) ??
    entries.find(([tag]) => primary(tag) === 'en') ??
    entries[0])?.[1] as string;
}

/** Anything that knows scope descriptions: the resources, in the order they are asked. */
export interface DescribedResource {
  readonly scopeDescriptions: ReadonlyMap<string, ScopeDescription>;
}

/**
 * The description of `scope` in `language`: from the first of `resources` that describes
 * it (the requested resources are passed first), or undefined: the page shows the name.
 */
export function describeScope(scope: string, language: string, resources: Iterable<DescribedResource>): string | undefined {
  for (const resource of resources) {
    const description = resource.scopeDescriptions.get(scope);
    if (description !== undefined) return describedIn(description, language);
  }
  return undefined;
}
