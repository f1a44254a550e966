import t from 'tap';
import { accessDecision } from '../../src/identity/access-rules.js';
import { federatedSubject, isFederatedSubject } from '../../src/identity/federated-subject.js';
import { lacksProfileClaims, profileOf } from '../../src/identity/profile.js';
import { ProviderRegistry } from '../../src/identity/providers.js';
import { openSignIn, sealSignIn, stateDigest } from '../../src/identity/sign-in-record.js';
import { UpstreamTokenVault } from '../../src/identity/token-vault.js';
import type { UpstreamIdentity } from '../../src/identity/upstream.js';
import { memoryStore } from '../helpers/stores.js';

const registry = ProviderRegistry.fromEntries([
  {
    id: 'corp',
    type: 'oidc',
    name: 'Corp',
    issuer: 'https://login.example.com',
    client_id: 'c',
    client_secret: 's',
    allowed_email_domains: ['Example.com'],
    required_claims: { groups: ['mcp-users', 'admins'], tid: 'tenant-1' },
  },
  { id: 'open', type: 'oidc', name: 'Open', issuer: 'https://login.example.org', client_id: 'c', client_secret: 's' },
  { id: 'gh', type: 'github', name: 'GitHub', client_id: 'c', client_secret: 's', allowed_organizations: ['Acme'] },
]);
const config = (id: string) => registry.get(id) as NonNullable<ReturnType<typeof registry.get>>;

function identity(profile: Record<string, unknown>, claims: Record<string, unknown> = {}, organizations?: string[]): UpstreamIdentity {
  return { subject: 's', profile, claims, ...(organizations ? { organizations } : {}), tokens: { accessToken: 'at' } };
}

t.test('access rules', async (t) => {
  const verified = { email: 'ana@example.COM', email_verified: true };
  const member = { groups: ['staff', 'mcp-users'], tid: 'tenant-1' };
  t.same(accessDecision(config('corp'), identity(verified, member)), { allowed: true }, 'domains compare case-insensitively');
  t.same(accessDecision(config('corp'), identity({ email: 'ana@example.com', email_verified: false }, member)), {
    allowed: false,
    reason: 'no verified email',
  });
  t.same(accessDecision(config('corp'), identity({ email: 'ana@example.com' }, member)), { allowed: false, reason: 'no verified email' });
  t.same(accessDecision(config('corp'), identity({ email: 'ana@evil-example.com', email_verified: true }, member)), {
    allowed: false,
    reason: 'email domain not allowed',
  });
  t.same(accessDecision(config('corp'), identity({ email: 'ana@sub.example.com', email_verified: true }, member)), {
    allowed: false,
    reason: 'email domain not allowed',
  });
  t.same(accessDecision(config('corp'), identity(verified, { ...member, groups: 'admins' })), { allowed: true }, 'a string claim');
  t.same(accessDecision(config('corp'), identity(verified, { ...member, groups: ['staff'] })), {
    allowed: false,
    reason: 'required claim groups missing',
  });
  t.same(accessDecision(config('corp'), identity(verified, { groups: ['admins'], tid: 'tenant-2' })), {
    allowed: false,
    reason: 'required claim tid missing',
  });
  t.same(accessDecision(config('corp'), identity(verified, { groups: [{ name: 'admins' }], tid: 'tenant-1' })), {
    allowed: false,
    reason: 'required claim groups missing',
  });
  t.same(accessDecision(config('open'), identity({})), { allowed: true }, 'no rules: anyone the provider signs in');
  t.same(accessDecision(config('gh'), identity({}, {}, ['other', 'acme'])), { allowed: true }, 'organizations case-insensitively');
  t.same(accessDecision(config('gh'), identity({}, {}, ['other'])), { allowed: false, reason: 'not a member of an allowed organization' });
  t.same(accessDecision(config('gh'), identity({})), { allowed: false, reason: 'not a member of an allowed organization' });
});

t.test('federated subjects', async (t) => {
  const a = federatedSubject('corp', '248289761001');
  t.equal(a, federatedSubject('corp', '248289761001'), 'stable');
  t.match(a, /^fed_[A-Za-z0-9_-]{43}$/);
  t.not(a, federatedSubject('corp', '248289761002'), 'another upstream user');
  t.not(a, federatedSubject('corp-2', '248289761001'), 'the same upstream subject under another provider id');
  t.not(federatedSubject('a', 'b\0c'), federatedSubject('a\0b', 'c'), 'no ambiguity between the two parts');
  t.equal(isFederatedSubject(a), true);
  t.equal(isFederatedSubject('alice'), false);
});

t.test('profiles: the mapped claims, well typed', async (t) => {
  t.same(
    profileOf({
      sub: 'x',
      email: 'ana@example.com',
      email_verified: 'true',
      name: 'Ana',
      preferred_username: 'ana',
      picture: 'https://cdn.example.com/ana.png',
      groups: ['g'],
      phone_number: '+1',
    }),
    { email: 'ana@example.com', email_verified: true, name: 'Ana', preferred_username: 'ana', picture: 'https://cdn.example.com/ana.png' },
    'Cognito\'s "true" is a boolean; other claims are not mapped',
  );
  t.same(profileOf({ email: 'ana@example.com' }), { email: 'ana@example.com', email_verified: false }, 'unverified unless said');
  t.same(profileOf({ email: 'not-an-email', email_verified: true, name: 42, picture: 'http://cdn.example.com/a.png' }), {});
  t.same(profileOf({ name: 'x'.repeat(3000) }), {}, 'an oversized value is dropped');
  t.equal(lacksProfileClaims({ email: 'a@b.c', email_verified: true, name: 'A', preferred_username: 'a', picture: 'https://x/p' }), false);
  t.equal(lacksProfileClaims({ email: 'a@b.c', email_verified: true, name: 'A' }), true);
});

t.test('a sign-in record opens only with its own state', async (t) => {
  const checks = { state: 'state-value', nonce: 'n', codeVerifier: 'v' };
  const record = {
    provider: 'corp',
    nonce: 'n',
    codeVerifier: 'v',
    browser: 'b',
    parameters: [['client_id', 'web']] as [string, string][],
    demands: { freshSignIn: false },
  };
  const sealed = sealSignIn(checks, record);
  t.notMatch(sealed, /codeVerifier|web|corp/, 'sealed, not signed');
  t.same(openSignIn('state-value', sealed), record);
  t.equal(openSignIn('another-state', sealed), undefined);
  t.equal(openSignIn('state-value', `${sealed.slice(0, -2)}AA`), undefined, 'altered');
  t.not(stateDigest('state-value'), 'state-value');
  t.equal(stateDigest('state-value'), stateDigest('state-value'));
});

t.test('the token vault: sealed, bound to its holder, refreshed when expired', async (t) => {
  const { store, clock, advance } = await memoryStore(t);
  const now = () => Math.floor(clock.now / 1000);
  const vault = new UpstreamTokenVault(store.upstream, 'upstream-token-secret-0123456789abcdef', () => clock.now);
  const tokens = { accessToken: 'upstream-access', refreshToken: 'upstream-refresh', expiresAt: now() + 600 };
  await vault.keepForSession('sid-1', { provider: 'corp', tokens, idToken: 'upstream-id-token' }, 3600);
  const sealed = (await store.upstream.findUpstreamTokens({ sessionId: 'sid-1' })) as string;
  t.notMatch(sealed, /upstream-access|upstream-refresh|upstream-id-token|corp/);
  t.same(await vault.forSession('sid-1'), { provider: 'corp', tokens, idToken: 'upstream-id-token' });

  await vault.bindToGrant('sid-1', 'grant-1', 7200);
  const refreshes: string[] = [];
  const refresh = async (provider: string, token: string) => {
    refreshes.push(`${provider} ${token}`);
    return { accessToken: 'upstream-access-2', expiresAt: now() + 600 };
  };
  t.same(await vault.forGrant('grant-1', refresh), { provider: 'corp', tokens }, 'fresh: no refresh');
  t.same(refreshes, []);
  const grantCopy = (await store.upstream.findUpstreamTokens({ grantId: 'grant-1' })) as string;
  t.notMatch(grantCopy, /upstream-id-token/, "the grant's copy holds no ID token");

  // Moved to another holder, a sealed value does not open.
  await store.upstream.saveUpstreamTokens({ grantId: 'grant-2' }, grantCopy, 600);
  t.equal(await vault.forGrant('grant-2', refresh), undefined);
  // Another secret does not open it either.
  const other = new UpstreamTokenVault(store.upstream, 'another-secret-0123456789abcdef0123', () => clock.now);
  t.equal(await other.forGrant('grant-1', refresh), undefined);

  await advance(600 - 29);
  const refreshed = await vault.forGrant('grant-1', refresh);
  t.same(refreshed, {
    provider: 'corp',
    tokens: { accessToken: 'upstream-access-2', expiresAt: now() + 600, refreshToken: 'upstream-refresh' },
  });
  t.same(refreshes, ['corp upstream-refresh'], 'refreshed 30 s before it expires; the old refresh token stays without a new one');
  t.same(await vault.forGrant('grant-1', refresh), refreshed, 'kept');

  // Two refreshes at once: one call to the provider (a rotating provider would revoke on the second).
  await vault.keepForSession('sid-3', { provider: 'corp', tokens: { accessToken: 'a3', refreshToken: 'r3', expiresAt: now() + 10 } }, 600);
  await vault.bindToGrant('sid-3', 'grant-4', 600);
  refreshes.length = 0;
  const [one, two] = await Promise.all([vault.forGrant('grant-4', refresh), vault.forGrant('grant-4', refresh)]);
  t.same(refreshes, ['corp r3'], 'one refresh for concurrent callers');
  t.same(one, two);

  await store.revokeGrant('grant-1', 600);
  t.equal(await vault.forGrant('grant-1', refresh), undefined, 'revoked with its grant');
  await vault.forgetSession('sid-1');
  t.equal(await vault.forSession('sid-1'), undefined);
  await vault.bindToGrant('sid-1', 'grant-3', 600);
  t.equal(await store.upstream.findUpstreamTokens({ grantId: 'grant-3' }), undefined, 'nothing to bind');
});
