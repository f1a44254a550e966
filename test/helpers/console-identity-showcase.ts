import type { Page } from 'playwright-core';
import type { AdminServices } from '../../src/admin/index.js';

/**
 * The console's users, identity providers and workload trusts in the showcase
 * (page-showcase.ts): entries added through the admin services (a user, an OpenID Connect
 * provider whose discovery document the showcase serves, a GitHub provider, a workload trust)
 * beside those of the files, and the pages the accessibility test and `npm run
 * docs:screenshots` open.
 */

export const SHOWCASE_ENTRIES_KEY = 'showcase-entries-encryption-key-0123456789';

/** WORKLOAD_TRUSTS_FILE of the showcase: a cluster's service accounts. */
export const SHOWCASE_TRUSTS = [
  {
    id: 'cluster',
    issuer: 'https://kubernetes.default.svc',
    jwks_uri: 'https://cluster.example.com/openid/v1/jwks',
    rules: [{ sub: 'system:serviceaccount:photos:*', resources: ['https://api.photos.example.com/'], scope: 'photos:read' }],
  },
];

export interface IdentityShowcase {
  openConsoleUsers(page: Page): Promise<void>;
  /** The page of a user added here: password, access, role, deletion. */
  openConsoleUser(page: Page): Promise<void>;
  /** The form of a new user sent with problems: each next to its field. */
  openConsoleNewUserProblems(page: Page): Promise<void>;
  openConsoleProviders(page: Page): Promise<void>;
  openConsoleProvider(page: Page): Promise<void>;
  openConsoleTrusts(page: Page): Promise<void>;
  openConsoleTrust(page: Page): Promise<void>;
}

/** Adds the showcase's entries; `discoveryIssuer` serves an OpenID Connect discovery document. */
export async function seedIdentityEntries(admin: AdminServices, discoveryIssuer: string): Promise<void> {
  await admin.api.users.create({
    username: 'grace',
    sub: 'grace@example.com',
    claims: { name: 'Grace Hopper', email: 'grace@example.com' },
    password: 'cobol-compiler-1959',
  });
  await admin.api.providers.create({
    id: 'acme-sso',
    type: 'oidc',
    name: 'Acme SSO',
    issuer: discoveryIssuer,
    client_id: 'identity',
    client_secret: 'showcase-upstream-secret-0123456789',
    roles: { admin: { groups: 'identity-admins' } },
    allowed_email_domains: ['example.com'],
  });
  await admin.api.providers.create({
    id: 'github',
    type: 'github',
    name: 'GitHub',
    client_id: 'Iv1.showcase',
    client_secret: 'showcase-github-secret-0123456789',
  });
  await admin.api.workloadTrusts.create({
    id: 'ci',
    issuer: 'https://token.actions.githubusercontent.com',
    audience: 'https://identity.example.com',
    require_jti: true,
    rules: [{ claims: { repository: 'acme/photos' }, resources: ['https://api.photos.example.com/'], scope: 'photos:read photos:write' }],
  });
}

export function identityShowcase(
  signedIn: (page: Page, path: string, user: { username: string; password: string }) => Promise<void>,
  admin: { username: string; password: string },
): IdentityShowcase {
  return {
    openConsoleUsers: (page) => signedIn(page, '/admin/users', admin),
    openConsoleUser: (page) => signedIn(page, '/admin/users/user?sub=grace%40example.com', admin),
    async openConsoleNewUserProblems(page) {
      await signedIn(page, '/admin/users/new', admin);
      await page.locator('#username').fill('margaret');
      await page.locator('#name').fill('Margaret Hamilton');
      await page.locator('#password').fill('apollo');
      await Promise.all([page.waitForURL(/\/admin\/users\/new$/), page.locator('form[action$="/users/new"] button[type=submit]').click()]);
      await page.waitForSelector('.field-error');
    },
    openConsoleProviders: (page) => signedIn(page, '/admin/providers', admin),
    openConsoleProvider: (page) => signedIn(page, '/admin/providers/provider?id=acme-sso', admin),
    openConsoleTrusts: (page) => signedIn(page, '/admin/workload-trusts', admin),
    openConsoleTrust: (page) => signedIn(page, '/admin/workload-trusts/trust?id=ci', admin),
  };
}
