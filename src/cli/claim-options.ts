import { ADDRESS_MEMBERS, isStandardClaimName, STANDARD_CLAIMS, type StandardClaims, StandardClaimsSchema } from '../users/claims.js';
import { UsageError } from './command.js';

/**
 * `users add --claim name=value` (repeatable): a user's standard claims (OpenID Connect Core
 * 1.0 §5.1), each value typed as the standard says: `email_verified=true` a boolean,
 * `updated_at=1700000000` a number, `address.locality=Berlin` a member of the address, any
 * other a string. An unknown claim or a bad value is a usage error naming it.
 */

const ADDRESS_PREFIX = 'address.';

function typedValue(name: string, value: string): unknown {
  switch (STANDARD_CLAIMS[name as keyof typeof STANDARD_CLAIMS]) {
    case 'boolean':
      if (value !== 'true' && value !== 'false') throw new UsageError(`--claim ${name}: must be true or false`);
      return value === 'true';
    case 'number':
      if (!/^\d{1,15}$/.test(value)) throw new UsageError(`--claim ${name}: must be a whole number of seconds since 1970-01-01T00:00:00Z`);
      return Number(value);
    default:
      return value;
  }
}

/** The claims the options give, validated as USERS_FILE is; undefined when there are none. */
export function claimsFromOptions(options: readonly string[] | undefined): StandardClaims | undefined {
  if (!options || options.length === 0) return undefined;
  const claims: Record<string, unknown> = {};
  const address: Record<string, string> = {};
  for (const option of options) {
    const separator = option.indexOf('=');
    if (separator <= 0) throw new UsageError(`--claim ${option}: must be name=value, such as email=alice@example.com`);
    const name = option.slice(0, separator);
    const value = option.slice(separator + 1);
    const member = name.startsWith(ADDRESS_PREFIX) ? name.slice(ADDRESS_PREFIX.length) : undefined;
    if (member !== undefined && !(ADDRESS_MEMBERS as readonly string[]).includes(member))
      throw new UsageError(`--claim ${name}: the address has no member "${member}" (it has ${ADDRESS_MEMBERS.join(', ')})`);
    if (name === 'sub') throw new UsageError('--claim sub: the subject is not a claim here: use --sub');
    if (name === 'address') throw new UsageError('--claim address: give its members, such as address.locality=Berlin');
    if (member === undefined && !isStandardClaimName(name))
      throw new UsageError(`--claim ${name}: not a standard claim (OpenID Connect Core 1.0 section 5.1)`);
    const target = member === undefined ? claims : address;
    const key = member ?? name;
    if (Object.hasOwn(target, key)) throw new UsageError(`--claim ${name}: given twice`);
    target[key] = member === undefined ? typedValue(name, value) : value;
  }
  if (Object.keys(address).length > 0) claims.address = address;
  const parsed = StandardClaimsSchema.safeParse(claims);
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as (typeof parsed.error.issues)[number];
    throw new UsageError(`--claim ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}
