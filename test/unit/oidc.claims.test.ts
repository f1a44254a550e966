import t from 'tap';
import { claimsForScopes, IDENTITY_SCOPES, isIdentityScope, SCOPE_CLAIMS } from '../../src/oidc/claims.js';

/** Which claims the scopes granted release (OpenID Connect Core 1.0 §5.4), and the scopes OpenID Connect defines. */

const ALICE = Object.freeze({
  updated_at: 1_700_000_000,
  phone_number_verified: false,
  phone_number: '+44 1865 270000',
  address: Object.freeze({ locality: 'Oxford', country: 'United Kingdom' }),
  email_verified: true,
  email: 'alice@wonderland.example',
  locale: 'en-GB',
  picture: 'https://alice.example/me.png',
  preferred_username: 'alice',
  given_name: 'Alice',
  name: 'Alice Liddell',
});

t.test('the scopes OpenID Connect defines', async (t) => {
  t.strictSame(IDENTITY_SCOPES, ['openid', 'profile', 'email', 'address', 'phone', 'offline_access']);
  for (const scope of IDENTITY_SCOPES) t.equal(isIdentityScope(scope), true, scope);
  for (const scope of ['read', 'OPENID', 'openid ', '', 'constructor']) t.equal(isIdentityScope(scope), false, JSON.stringify(scope));
});

t.test('§5.4: the claims each scope requests', async (t) => {
  t.strictSame(SCOPE_CLAIMS, {
    profile: [
      'name',
      'family_name',
      'given_name',
      'middle_name',
      'nickname',
      'preferred_username',
      'profile',
      'picture',
      'website',
      'gender',
      'birthdate',
      'zoneinfo',
      'locale',
      'updated_at',
    ],
    email: ['email', 'email_verified'],
    address: ['address'],
    phone: ['phone_number', 'phone_number_verified'],
  });
  t.ok(Object.isFrozen(SCOPE_CLAIMS) && Object.values(SCOPE_CLAIMS).every(Object.isFrozen), 'frozen');
});

t.test('claimsForScopes releases only what the granted scopes name, in the order of §5.4', async (t) => {
  const released = (scopes: Iterable<string>) => {
    const claims = claimsForScopes(ALICE, scopes);
    return [Object.keys(claims), claims] as const;
  };
  t.strictSame(released(['openid']), [[], {}], 'openid alone: no claim (sub is the caller’s)');
  t.strictSame(released(['openid', 'profile']), [
    ['name', 'given_name', 'preferred_username', 'picture', 'locale', 'updated_at'],
    {
      name: 'Alice Liddell',
      given_name: 'Alice',
      preferred_username: 'alice',
      picture: 'https://alice.example/me.png',
      locale: 'en-GB',
      updated_at: 1_700_000_000,
    },
  ]);
  t.strictSame(released(['email', 'openid']), [['email', 'email_verified'], { email: 'alice@wonderland.example', email_verified: true }]);
  t.strictSame(released(new Set(['address'])), [['address'], { address: { locality: 'Oxford', country: 'United Kingdom' } }]);
  t.strictSame(released(['phone']), [
    ['phone_number', 'phone_number_verified'],
    { phone_number: '+44 1865 270000', phone_number_verified: false },
  ]);
  t.strictSame(
    Object.keys(claimsForScopes(ALICE, ['phone', 'address', 'email', 'profile', 'openid', 'offline_access', 'read'])),
    [
      'name',
      'given_name',
      'preferred_username',
      'picture',
      'locale',
      'updated_at',
      'email',
      'email_verified',
      'address',
      'phone_number',
      'phone_number_verified',
    ],
    'every claim scope: every claim, whatever the order of the scopes',
  );
  t.strictSame(released(['read', 'write', 'offline_access']), [[], {}], 'other scopes release nothing');
  t.strictSame(released([]), [[], {}]);
});

t.test('claimsForScopes leaves out what the user does not have, and never anything but standard claims', async (t) => {
  t.strictSame(claimsForScopes({}, ['profile', 'email', 'address', 'phone']), {});
  t.strictSame(claimsForScopes({ email: 'a@b.example' }, ['email']), { email: 'a@b.example' }, 'no email_verified invented');
  t.strictSame(claimsForScopes({ email: undefined, email_verified: false }, ['email']), { email_verified: false }, 'false is a value');
  t.strictSame(claimsForScopes({ sub: 'u-1', roles: ['admin'], name: 'A' }, ['profile', 'roles', 'sub']), { name: 'A' });
  const inherited = Object.create({ email: 'from-the-prototype@example.com' }) as Record<string, unknown>;
  t.strictSame(claimsForScopes(inherited, ['email']), {}, 'own properties only');
});
