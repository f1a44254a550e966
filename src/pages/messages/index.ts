import { de } from './de.js';
import { en } from './en.js';
import type { Messages } from './types.js';

export type { ErrorKind, Messages } from './types.js';
export type { ConsoleNavId, ConsoleNoticeId, KeyStateName, SignInFailure } from './console-types.js';

/** The languages of the pages; the first is the default. */
export const CATALOGUE: ReadonlyMap<string, Messages> = new Map([
  ['en', en],
  ['de', de],
]);

export const DEFAULT_LANGUAGE = 'en';
