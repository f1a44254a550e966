import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { UserRegistry } from '../../src/users/registry.js';
import { runCommand } from '../helpers/cli.js';
import { tempDir } from '../helpers/keys.js';

/** `oauth2-token-service users add --claim name=value`, in-process: a user's standard claims (OpenID Connect Core 1.0 §5.1). */

const users = (args: string[], input?: string) => runCommand(['users', ...args], input === undefined ? {} : { input });

t.test('users add --claim: standard claims, typed as the standard says; a bad one is a usage error', async (t) => {
  const file = join(await tempDir(t), 'users.json');
  const claims = [
    ...['email=alice@example.com', 'email_verified=true', 'name=Alice Liddell', 'updated_at=1700000000'],
    ...['address.locality=Berlin', 'address.country=DE', 'phone_number_verified=false'],
  ];
  const run = await users(
    ['add', '--file', file, '--username', 'alice', ...claims.flatMap((claim) => ['--claim', claim])],
    'alice-password-1\n',
  );
  t.same([run.code, run.stdout, run.stderr], [0, `added user alice to ${file}\n`, '']);
  const stored = JSON.parse(await readFile(file, 'utf8')) as { users: Record<string, unknown>[] };
  t.strictSame(stored.users[0]?.claims, {
    email: 'alice@example.com',
    email_verified: true,
    name: 'Alice Liddell',
    updated_at: 1_700_000_000,
    phone_number_verified: false,
    address: { locality: 'Berlin', country: 'DE' },
  });
  t.strictSame((await UserRegistry.load(file)).get('alice')?.claims, stored.users[0]?.claims, 'as the server reads it');
  const before = await readFile(file, 'utf8');
  const refusals: [string[], string][] = [
    [['roles=admin'], '--claim roles: not a standard claim (OpenID Connect Core 1.0 section 5.1)'],
    [['sub=u-1'], '--claim sub: the subject is not a claim here: use --sub'],
    [['email'], '--claim email: must be name=value, such as email=alice@example.com'],
    [['=x'], '--claim =x: must be name=value, such as email=alice@example.com'],
    [['email=alice'], '--claim email: must be an email address, such as alice@example.com'],
    [['email_verified=yes'], '--claim email_verified: must be true or false'],
    [['updated_at=soon'], '--claim updated_at: must be a whole number of seconds since 1970-01-01T00:00:00Z'],
    [['address=Berlin'], '--claim address: give its members, such as address.locality=Berlin'],
    [
      ['address.city=Berlin'],
      '--claim address.city: the address has no member "city" (it has formatted, street_address, locality, region, postal_code, country)',
    ],
    [['locale=en_US'], '--claim locale: must be a BCP 47 language tag, such as en-US'],
    [['name='], '--claim name: must not be empty (leave the claim out instead)'],
    [['name=A', 'name=B'], '--claim name: given twice'],
    [['address.region=BE', 'address.region=BB'], '--claim address.region: given twice'],
  ];
  for (const [given, message] of refusals) {
    const refused = await users(
      ['add', '--file', file, '--username', 'bob', ...given.flatMap((claim) => ['--claim', claim])],
      'bob-password-1\n',
    );
    t.same([refused.code, refused.stdout, refused.stderr.split('\n')[0]], [2, '', `error: ${message}`], given.join(' '));
    t.match(refused.stderr, /\nusage: oauth2-token-service users add --username NAME \[--sub ID\] \[--claim NAME=VALUE\]\.\.\. /);
  }
  t.equal(await readFile(file, 'utf8'), before, 'nothing written');
});
