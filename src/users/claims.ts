import { z } from 'zod';

/**
 * The standard claims of OpenID Connect Core 1.0 §5.1 that a user of USERS_FILE may carry
 * (`"claims": {...}`), with their types, and the schema the file is validated with. `sub`
 * is not among them: it is the user's own field. Which of them a client gets is decided by
 * the scopes it was granted (src/oidc/claims.ts, §5.4).
 */

/** §5.1.1: "The Address Claim represents a physical mailing address." */
export type AddressClaim = {
  readonly formatted?: string;
  readonly street_address?: string;
  readonly locality?: string;
  readonly region?: string;
  readonly postal_code?: string;
  readonly country?: string;
};

export type StandardClaims = {
  readonly name?: string;
  readonly given_name?: string;
  readonly family_name?: string;
  readonly middle_name?: string;
  readonly nickname?: string;
  readonly preferred_username?: string;
  readonly profile?: string;
  readonly picture?: string;
  readonly website?: string;
  readonly email?: string;
  readonly email_verified?: boolean;
  readonly gender?: string;
  readonly birthdate?: string;
  readonly zoneinfo?: string;
  readonly locale?: string;
  readonly phone_number?: string;
  readonly phone_number_verified?: boolean;
  readonly address?: AddressClaim;
  readonly updated_at?: number;
};

export type StandardClaimName = keyof StandardClaims;
/** A claim's JSON type, as §5.1 gives it. */
export type ClaimType = 'string' | 'boolean' | 'number' | 'object';

/** Every standard claim (§5.1, in its order) and its JSON type. */
export const STANDARD_CLAIMS: Readonly<Record<StandardClaimName, ClaimType>> = Object.freeze({
  name: 'string',
  given_name: 'string',
  family_name: 'string',
  middle_name: 'string',
  nickname: 'string',
  preferred_username: 'string',
  profile: 'string',
  picture: 'string',
  website: 'string',
  email: 'string',
  email_verified: 'boolean',
  gender: 'string',
  birthdate: 'string',
  zoneinfo: 'string',
  locale: 'string',
  phone_number: 'string',
  phone_number_verified: 'boolean',
  address: 'object',
  updated_at: 'number',
});

export const ADDRESS_MEMBERS = ['formatted', 'street_address', 'locality', 'region', 'postal_code', 'country'] as const;

export function isStandardClaimName(name: string): name is StandardClaimName {
  return Object.hasOwn(STANDARD_CLAIMS, name);
}

const CONTROL = /\p{Cc}/u;
/** Control characters other than line breaks, which a formatted address or street address may hold (§5.1.1). */
const CONTROL_BUT_LINE_BREAKS = /[^\P{Cc}\r\n]/u;

const text = (max: number, control = CONTROL) =>
  z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty (leave the claim out instead)')
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !control.test(value), 'must not contain control characters');

const url = z
  .string({ error: 'must be a string' })
  .max(2048, 'must be at most 2048 characters')
  .refine(
    (value) => !/[\s\p{Cc}]/u.test(value) && /^https?:\/\//i.test(value) && URL.canParse(value),
    'must be an absolute http or https URL',
  );

const boolean = z.boolean({ error: 'must be true or false (a JSON boolean)' });

/** A plausible address: one @, a local part, a domain of at least two labels; no spaces. */
const EMAIL = /^[^\s@]{1,64}@(?:[^\s@.]+\.)+[^\s@.]+$/u;

/** §5.1 birthdate: "ISO 8601-1 YYYY-MM-DD format. The year MAY be 0000, indicating that it is omitted. To represent only the year, YYYY format is allowed." */
function isBirthdate(value: string): boolean {
  const match = /^(\d{4})(?:-(\d{2})-(\d{2}))?$/.exec(value);
  if (!match) return false;
  if (match[2] === undefined) return true;
  // Year 0000 (omitted) takes 29 February: check the day in a leap year.
  const year = match[1] === '0000' ? 2000 : Number(match[1]);
  const [month, day] = [Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return month >= 1 && month <= 12 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** §5.1 zoneinfo: "String from IANA Time Zone Database", such as Europe/Paris. */
function isTimeZone(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** §5.1 locale: "represented as a BCP47 [RFC5646] language tag", such as en-US. */
function isLanguageTag(value: string): boolean {
  try {
    return /^[A-Za-z0-9-]+$/.test(value) && Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
}

/** §5.1 phone_number: E.164 recommended, such as +1 (425) 555-1212; an RFC 3966 extension as ;ext=5678. */
const PHONE_NUMBER = /^\+?(?=[^;]*\d)[\d ().-]{1,40}(?:;ext=\d{1,10})?$/;

/** Any name but those above: refused with the claim's name (the path). */
const notStandard = (what: string) => z.custom<never>(() => false, { error: what });

const AddressSchema = z
  .object(
    {
      formatted: text(1024, CONTROL_BUT_LINE_BREAKS).optional(),
      street_address: text(512, CONTROL_BUT_LINE_BREAKS).optional(),
      locality: text(255).optional(),
      region: text(255).optional(),
      postal_code: text(32).optional(),
      country: text(255).optional(),
    },
    { error: `must be an object of ${ADDRESS_MEMBERS.join(', ')}` },
  )
  .catchall(notStandard('not a member of the address claim (OpenID Connect Core 1.0 section 5.1.1)'))
  .refine((address) => Object.keys(address).length > 0, 'must have at least one member');

const ClaimsObjectSchema = z
  .object(
    {
      sub: notStandard('not a claim here: the subject is the user\'s "sub" field').optional(),
      name: text(255).optional(),
      given_name: text(255).optional(),
      family_name: text(255).optional(),
      middle_name: text(255).optional(),
      nickname: text(255).optional(),
      preferred_username: text(255).optional(),
      profile: url.optional(),
      picture: url.optional(),
      website: url.optional(),
      email: text(254)
        .refine((value) => EMAIL.test(value), 'must be an email address, such as alice@example.com')
        .optional(),
      email_verified: boolean.optional(),
      gender: text(64).optional(),
      birthdate: text(10).refine(isBirthdate, 'must be a date as YYYY-MM-DD (year 0000 when omitted) or a year as YYYY').optional(),
      zoneinfo: text(64).refine(isTimeZone, 'must be a time zone of the IANA database, such as Europe/Paris').optional(),
      locale: text(64).refine(isLanguageTag, 'must be a BCP 47 language tag, such as en-US').optional(),
      phone_number: text(64)
        .refine((value) => PHONE_NUMBER.test(value), 'must be a telephone number, such as +1 (425) 555-1212 or +1 425 555 1212;ext=5678')
        .optional(),
      phone_number_verified: boolean.optional(),
      address: AddressSchema.optional(),
      // §5.1: "Its value is a JSON number representing the number of seconds from 1970-01-01T00:00:00Z as measured in UTC until the date/time."
      updated_at: z
        .number({ error: 'must be a JSON number of seconds since 1970-01-01T00:00:00Z' })
        .int('must be a whole number of seconds since 1970-01-01T00:00:00Z')
        .min(0, 'must be a whole number of seconds since 1970-01-01T00:00:00Z')
        .max(253_402_300_799, 'must be a time before the year 10000')
        .optional(),
    },
    { error: 'must be an object of standard claims (OpenID Connect Core 1.0 section 5.1)' },
  )
  .catchall(notStandard('not a standard claim (OpenID Connect Core 1.0 section 5.1)'));

/** Validates a `claims` object: one issue per problem, its path the claim (and the address member). */
export const StandardClaimsSchema = ClaimsObjectSchema as unknown as z.ZodType<StandardClaims>;

/** The claims frozen, the address too: a user's claims are shared by every request. */
export function frozenClaims(claims: StandardClaims | undefined): Readonly<StandardClaims> {
  if (!claims) return Object.freeze({});
  return Object.freeze({ ...claims, ...(claims.address ? { address: Object.freeze({ ...claims.address }) } : {}) });
}
