import t from 'tap';
import { frozenClaims, isStandardClaimName, STANDARD_CLAIMS, StandardClaimsSchema } from '../../src/users/claims.js';

/** The standard claims a user may carry (OpenID Connect Core 1.0 §5.1): names, types, and the exact refusals. */

/** What the schema says about `claims`: one `path: message` line per problem, or the parsed claims. */
function problems(claims: unknown): string[] {
  const result = StandardClaimsSchema.safeParse(claims);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

const EVERY_CLAIM = {
  name: 'Alice Liddell',
  given_name: 'Alice',
  family_name: 'Liddell',
  middle_name: 'Pleasance',
  nickname: 'Al',
  preferred_username: 'alice',
  profile: 'https://alice.example/',
  picture: 'http://alice.example/me.png',
  website: 'https://wonderland.example/blog#latest',
  email: 'alice@wonderland.example',
  email_verified: true,
  gender: 'female',
  birthdate: '1852-05-04',
  zoneinfo: 'Europe/London',
  locale: 'en-GB',
  phone_number: '+44 (1865) 270000',
  phone_number_verified: false,
  address: {
    formatted: '1 Rabbit Hole\nOxford OX1 1AA\nUnited Kingdom',
    street_address: '1 Rabbit Hole\r\nFlat 2',
    locality: 'Oxford',
    region: 'Oxfordshire',
    postal_code: 'OX1 1AA',
    country: 'United Kingdom',
  },
  updated_at: 1_700_000_000,
};

t.test('the standard claims of §5.1, each with its JSON type', async (t) => {
  t.strictSame(Object.entries(STANDARD_CLAIMS), [
    ['name', 'string'],
    ['given_name', 'string'],
    ['family_name', 'string'],
    ['middle_name', 'string'],
    ['nickname', 'string'],
    ['preferred_username', 'string'],
    ['profile', 'string'],
    ['picture', 'string'],
    ['website', 'string'],
    ['email', 'string'],
    ['email_verified', 'boolean'],
    ['gender', 'string'],
    ['birthdate', 'string'],
    ['zoneinfo', 'string'],
    ['locale', 'string'],
    ['phone_number', 'string'],
    ['phone_number_verified', 'boolean'],
    ['address', 'object'],
    ['updated_at', 'number'],
  ]);
  t.equal(isStandardClaimName('email'), true);
  t.equal(isStandardClaimName('sub'), false, 'the subject is the user field, not a claim of the profile');
  t.equal(isStandardClaimName('toString'), false);
});

t.test('every claim with a valid value is accepted as it is', async (t) => {
  t.strictSame(StandardClaimsSchema.parse(EVERY_CLAIM), EVERY_CLAIM);
  t.strictSame(StandardClaimsSchema.parse({}), {});
  const accepted: Record<string, unknown>[] = [
    { birthdate: '0000-02-29' },
    { birthdate: '2000-02-29' },
    { birthdate: '1999' },
    { zoneinfo: 'America/Argentina/Buenos_Aires' },
    { zoneinfo: 'UTC' },
    { locale: 'de' },
    { locale: 'zh-Hant-TW' },
    { phone_number: '+1 425 555 1212;ext=5678' },
    { phone_number: '0301234567' },
    { email: 'a.b+tag@sub.example.co.uk' },
    { email: 'jörg@müller.example' },
    { address: { country: 'DE' } },
    { updated_at: 0 },
  ];
  for (const claims of accepted) t.strictSame(problems(claims), [], JSON.stringify(claims));
});

t.test('a bad claim is refused naming it, one line per problem', async (t) => {
  const refused: [unknown, string[]][] = [
    [{ roles: ['admin'] }, ['roles: not a standard claim (OpenID Connect Core 1.0 section 5.1)']],
    [{ sub: 'u-1' }, ['sub: not a claim here: the subject is the user\'s "sub" field']],
    [{ Email: 'a@b.example' }, ['Email: not a standard claim (OpenID Connect Core 1.0 section 5.1)']],
    [{ name: '' }, ['name: must not be empty (leave the claim out instead)']],
    [{ name: 7 }, ['name: must be a string']],
    [{ name: 'a\u0000b' }, ['name: must not contain control characters']],
    [{ name: 'n'.repeat(256) }, ['name: must be at most 255 characters']],
    [{ nickname: 'a\nb' }, ['nickname: must not contain control characters']],
    [{ email: 'alice' }, ['email: must be an email address, such as alice@example.com']],
    [{ email: 'alice@localhost' }, ['email: must be an email address, such as alice@example.com']],
    [{ email: 'al ice@example.com' }, ['email: must be an email address, such as alice@example.com']],
    [{ email: 'a@b@example.com' }, ['email: must be an email address, such as alice@example.com']],
    [{ email_verified: 'true' }, ['email_verified: must be true or false (a JSON boolean)']],
    [{ phone_number_verified: 1 }, ['phone_number_verified: must be true or false (a JSON boolean)']],
    [{ picture: 'javascript:alert(1)' }, ['picture: must be an absolute http or https URL']],
    [{ profile: '/alice' }, ['profile: must be an absolute http or https URL']],
    [{ website: 'ftp://alice.example/' }, ['website: must be an absolute http or https URL']],
    [{ website: 'https://alice.example/a b' }, ['website: must be an absolute http or https URL']],
    [{ website: `https://alice.example/${'a'.repeat(2048)}` }, ['website: must be at most 2048 characters']],
    [{ birthdate: '1852-5-4' }, ['birthdate: must be a date as YYYY-MM-DD (year 0000 when omitted) or a year as YYYY']],
    [{ birthdate: '1999-02-29' }, ['birthdate: must be a date as YYYY-MM-DD (year 0000 when omitted) or a year as YYYY']],
    [{ birthdate: '1999-13-01' }, ['birthdate: must be a date as YYYY-MM-DD (year 0000 when omitted) or a year as YYYY']],
    [{ birthdate: '04/05/1852' }, ['birthdate: must be a date as YYYY-MM-DD (year 0000 when omitted) or a year as YYYY']],
    [{ zoneinfo: 'Mars/Olympus_Mons' }, ['zoneinfo: must be a time zone of the IANA database, such as Europe/Paris']],
    [{ zoneinfo: '+01:00' }, ['zoneinfo: must be a time zone of the IANA database, such as Europe/Paris']],
    [{ locale: 'en_US' }, ['locale: must be a BCP 47 language tag, such as en-US']],
    [{ locale: 'english!' }, ['locale: must be a BCP 47 language tag, such as en-US']],
    [{ phone_number: 'call me' }, ['phone_number: must be a telephone number, such as +1 (425) 555-1212 or +1 425 555 1212;ext=5678']],
    [{ phone_number: '+()' }, ['phone_number: must be a telephone number, such as +1 (425) 555-1212 or +1 425 555 1212;ext=5678']],
    [{ updated_at: '1700000000' }, ['updated_at: must be a JSON number of seconds since 1970-01-01T00:00:00Z']],
    [{ updated_at: 1.5 }, ['updated_at: must be a whole number of seconds since 1970-01-01T00:00:00Z']],
    [{ updated_at: -1 }, ['updated_at: must be a whole number of seconds since 1970-01-01T00:00:00Z']],
    [{ updated_at: 1e15 }, ['updated_at: must be a time before the year 10000']],
    [{ address: 'Oxford' }, ['address: must be an object of formatted, street_address, locality, region, postal_code, country']],
    [{ address: {} }, ['address: must have at least one member']],
    [{ address: { city: 'Oxford' } }, ['address.city: not a member of the address claim (OpenID Connect Core 1.0 section 5.1.1)']],
    [{ address: { locality: 'Ox\nford' } }, ['address.locality: must not contain control characters']],
    [{ address: { formatted: 'a\tb' } }, ['address.formatted: must not contain control characters']],
    [{ address: { postal_code: 'p'.repeat(33) } }, ['address.postal_code: must be at most 32 characters']],
    [
      { email: 'alice', email_verified: 'yes', roles: [] },
      [
        'email: must be an email address, such as alice@example.com',
        'email_verified: must be true or false (a JSON boolean)',
        'roles: not a standard claim (OpenID Connect Core 1.0 section 5.1)',
      ],
    ],
    ['alice@example.com', [': must be an object of standard claims (OpenID Connect Core 1.0 section 5.1)']],
    [null, [': must be an object of standard claims (OpenID Connect Core 1.0 section 5.1)']],
  ];
  for (const [claims, expected] of refused) t.strictSame(problems(claims), expected, JSON.stringify(claims).slice(0, 80));
});

t.test('frozenClaims: frozen, the address too; an empty object when there are none', async (t) => {
  const claims = frozenClaims({ email: 'a@b.example', address: { locality: 'Oxford' } });
  t.strictSame(claims, { email: 'a@b.example', address: { locality: 'Oxford' } });
  t.ok(Object.isFrozen(claims));
  t.ok(Object.isFrozen(claims.address));
  t.strictSame(frozenClaims(undefined), {});
  t.ok(Object.isFrozen(frozenClaims(undefined)));
});
