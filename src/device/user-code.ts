import { randomInt } from 'node:crypto';
import { sha256Base64url } from '../shared/sha256.js';

/**
 * The user code of the device authorization grant (RFC 8628 §6.1): 8 characters of 20
 * consonants, "BCDFGHJKLMNPQRSTVWXZ" (no vowels, so no words; no digits to mistake for
 * letters), about 34.5 bits, shown as `XXXX-XXXX`. §6.1: "the authorization server should
 * ignore any characters like punctuation that are not in the user-code character set" and
 * compare "case-insensitively": what the user types is normalised before it is looked up.
 */

export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const LENGTH = 8;
const NORMALISED = new RegExp(`^[${USER_CODE_ALPHABET}]{${LENGTH}}$`);

/** A new user code, `XXXX-XXXX`. Each character by `randomInt` (crypto, rejection sampling: no modulo bias). */
export function newUserCode(): string {
  const characters = Array.from({ length: LENGTH }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]);
  return `${characters.slice(0, 4).join('')}-${characters.slice(4).join('')}`;
}

/**
 * What the user typed, as the eight characters it names: upper case, without the dash,
 * spaces and other punctuation (a letter or digit outside the alphabet stays, and makes it
 * no code); undefined when that is not eight characters of the alphabet.
 */
export function normaliseUserCode(typed: string): string | undefined {
  if (typed.length > 64) return undefined;
  const letters = typed.toUpperCase().replace(/[\p{P}\p{Z}\s]/gu, '');
  return NORMALISED.test(letters) ? letters : undefined;
}

/** How the pages show a normalised user code: `XXXX-XXXX`. */
export function displayedUserCode(normalised: string): string {
  return `${normalised.slice(0, 4)}-${normalised.slice(4)}`;
}

/** How the store names a normalised user code: its SHA-256 digest, base64url. */
export function userCodeDigest(normalised: string): string {
  return sha256Base64url(`user-code:${normalised}`);
}
