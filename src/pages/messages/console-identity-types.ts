import type { Html } from '../html.js';

/** The console's pages of users, identity providers and workload trusts (`t.console.identity`), in one language. */

/** Where an entry comes from, as the lists say it. */
export type IdentitySourceName = 'file' | 'admin' | 'federated';

/** Why a provider's discovery did not answer as it should (src/console/discovery.ts). */
export type DiscoveryFailureName = 'unreachable' | 'answer' | 'issuer';

export interface ConsoleIdentityMessages {
  readonly formProblems: string;
  readonly sources: Readonly<Record<IdentitySourceName, string>>;
  readonly source: string;
  /** A file entry: read-only here. */
  readonly readOnly: (file: Html) => Html;
  readonly create: string;
  readonly save: string;
  readonly open: string;
  readonly edit: string;
  readonly delete: string;
  readonly deleteTitle: (what: string) => string;
  readonly deleteButton: string;
  readonly created: string;
  readonly updated: string;
  readonly all: string;
  readonly filter: string;
  readonly optional: string;
  readonly jsonHint: string;
  readonly listHint: string;
  readonly notFound: string;

  readonly usersIntro: string;
  readonly newUser: string;
  readonly search: string;
  readonly noUsers: string;
  readonly user: string;
  readonly sub: string;
  readonly roles: string;
  readonly status: string;
  readonly active: string;
  readonly disabled: string;
  readonly provider: string;
  readonly lastSignIn: string;
  readonly username: string;
  readonly subHint: string;
  readonly name: string;
  readonly email: string;
  readonly password: string;
  readonly passwordHint: (length: number) => string;
  readonly adminRole: string;
  readonly adminRoleHint: string;
  readonly passwordTitle: string;
  readonly setPassword: string;
  readonly accessTitle: string;
  readonly disableExplanation: string;
  readonly disable: string;
  readonly enableExplanation: string;
  readonly enable: string;
  readonly roleTitle: string;
  readonly isAdmin: string;
  readonly isNotAdmin: string;
  readonly grantAdmin: string;
  readonly removeAdmin: string;
  readonly federatedRoles: string;
  readonly federatedNote: string;
  readonly deleteUserExplanation: (user: Html) => Html;
  readonly selfRefused: Readonly<Record<'disable' | 'demote' | 'delete', string>>;

  readonly providersIntro: string;
  readonly newOidc: string;
  readonly newGithub: string;
  readonly noProviders: string;
  readonly type: string;
  readonly types: Readonly<Record<'oidc' | 'github', string>>;
  readonly redirectUri: string;
  readonly redirectUriHint: string;
  readonly discovery: string;
  readonly discoveryAnswers: (when: string) => string;
  readonly discoveryFails: Readonly<Record<DiscoveryFailureName, string>>;
  readonly discoveryNone: string;
  readonly checkAgain: string;
  readonly id: string;
  readonly idHint: string;
  readonly displayName: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly clientSecretNew: string;
  readonly clientSecretKept: string;
  readonly clientSecretNone: string;
  readonly issuer: string;
  readonly scope: string;
  readonly tokenAuthMethod: string;
  readonly providerDefault: string;
  readonly requiredClaims: string;
  readonly idJag: string;
  readonly baseUrl: string;
  readonly apiUrl: string;
  readonly allowedOrganizations: string;
  readonly allowedEmailDomains: string;
  readonly keepTokens: string;
  readonly endSession: string;
  readonly allowPrivate: string;
  readonly authorizationParams: string;
  readonly adminRule: string;
  readonly adminRuleHint: string;
  readonly deleteProviderExplanation: (provider: Html) => Html;

  readonly trustsIntro: string;
  readonly newTrust: string;
  readonly noTrusts: string;
  readonly trust: string;
  readonly keys: string;
  readonly keysFrom: Readonly<Record<'jwks' | 'jwks_uri' | 'discovery', string>>;
  readonly rules: string;
  readonly rulesHint: string;
  readonly audience: string;
  readonly audienceHint: string;
  readonly jwksUri: string;
  readonly jwks: string;
  readonly requireJti: string;
  readonly deleteTrustExplanation: (trust: Html) => Html;
}
