import { InvalidRequest } from '../errors/index.js';

/**
 * `prompt` and `max_age` (OpenID Connect Core 1.0 §3.1.2.1), which OAuth clients use as
 * well: whether the user must sign in again or be asked again, or must not see a page.
 */

export const PROMPT_VALUES = ['none', 'login', 'consent'] as const;
export type PromptValue = (typeof PROMPT_VALUES)[number];

const isPromptValue = (value: string): value is PromptValue => (PROMPT_VALUES as readonly string[]).includes(value);

/**
 * "Space-delimited, case-sensitive list of ASCII string values"; "If this parameter
 * contains none with any other value, an error is returned." A value we do not know is
 * refused too, rather than ignored: a client asking for select_account would otherwise
 * believe it was honoured.
 */
export function parsePrompt(value: string | undefined): ReadonlySet<PromptValue> {
  if (value === undefined) return new Set();
  const values = value.split(' ').filter((v) => v !== '');
  const unknown = values.find((v) => !isPromptValue(v));
  if (unknown !== undefined) throw new InvalidRequest(`prompt value '${unknown}' is not supported: use none, login or consent`);
  const prompt = new Set(values as PromptValue[]);
  if (prompt.has('none') && prompt.size > 1) throw new InvalidRequest('prompt=none cannot be combined with other values');
  return prompt;
}

/** "Maximum Authentication Age. Specifies the allowable elapsed time in seconds since the last time the End-User was actively authenticated." */
export function parseMaxAge(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value)) throw new InvalidRequest('max_age must be a whole number of seconds');
  return Number(value);
}
