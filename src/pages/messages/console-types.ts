import type { Html } from '../html.js';
import type { ConsoleIdentityMessages } from './console-identity-types.js';
import type { ConsoleEntryMessages, EntryNavId, EntryNoticeId } from './console-entries-types.js';

/** The pages of the console's navigation (src/pages/console/nav.ts): each has its label here, in every language. */
export type ConsoleNavId = 'overview' | 'grants' | 'keys' | EntryNavId | 'users' | 'providers' | 'workload-trusts';

/** The notices a change leads back with (src/routes/console/frame.ts): each has its text here, in every language. */
export type ConsoleNoticeId = 'grant-revoked' | EntryNoticeId | IdentityNoticeId;

/** The notices of the pages of users, identity providers and workload trusts. */
export type IdentityNoticeId =
  | 'user-created'
  | 'user-password-set'
  | 'user-disabled'
  | 'user-enabled'
  | 'user-role-changed'
  | 'user-deleted'
  | 'provider-created'
  | 'provider-saved'
  | 'provider-deleted'
  | 'trust-created'
  | 'trust-saved'
  | 'trust-deleted';

/** Why the console's sign-in did not complete (src/console/sign-in.ts). */
export type SignInFailure = 'expired' | 'mismatch' | 'refused' | 'redeem';

/** A signing key's state (src/keys/lifecycle.ts). */
export type KeyStateName = 'scheduled' | 'signing' | 'retiring' | 'expired';

/** Every text of the console (/admin), in one language. */
export interface ConsoleMessages extends ConsoleEntryMessages {
  readonly name: string;
  readonly navLabel: string;
  readonly nav: Readonly<Record<ConsoleNavId, string>>;
  readonly signOut: string;
  readonly yourAccount: string;
  readonly utc: string;
  readonly yes: string;
  readonly no: string;
  readonly back: string;
  readonly nextPage: string;
  /** What a change did, shown on the page it leads back to (`?notice=<id>`). */
  readonly notices: Readonly<Record<ConsoleNoticeId, string>>;

  readonly atAGlance: string;
  readonly clients: string;
  readonly clientsBySource: (clients: { file: number; store: number; builtIn: number; registered: number }) => string;
  readonly users: string;
  readonly usersBySource: (users: { file: number; store: number; federated: number }) => string;
  readonly providers: string;
  readonly activeGrants: string;
  readonly activeGrantsNote: string;
  readonly lastHour: string;
  readonly countedHere: string;
  readonly issuedTitle: string;
  readonly issuedEmpty: string;
  readonly refusedTitle: string;
  readonly refusedEmpty: string;
  /** The chart's description: the minutes it spans, then each series and its total. */
  readonly chartDescription: (from: string, to: string, series: string) => string;
  /** The series beyond the chart's colours, summed. */
  readonly otherSeries: string;
  readonly dataTable: string;
  readonly minute: string;
  readonly total: string;

  readonly grantsIntro: string;
  readonly user: string;
  readonly client: string;
  readonly showGrants: string;
  readonly grantsNeedFilter: string;
  readonly noGrants: string;
  readonly grantsOf: (owner: Html) => Html;
  readonly grant: string;
  readonly scope: string;
  readonly granted: string;
  readonly expires: string;
  readonly actions: string;
  readonly revoke: string;
  readonly revokeTitle: string;
  readonly revokeExplanation: (user: Html, client: Html) => Html;
  readonly revokeButton: string;
  readonly cancel: string;
  readonly grantGone: string;

  readonly keysIntro: string;
  readonly chain: (alg: string) => string;
  readonly signsAccessTokens: string;
  readonly signsIdTokens: string;
  readonly nextKeySigns: (kid: Html, when: string) => Html;
  readonly noNextKey: string;
  readonly keyId: string;
  readonly state: string;
  readonly published: string;
  readonly signsFrom: string;
  readonly signsUntil: string;
  readonly publishedUntil: string;
  readonly keyStates: Readonly<Record<KeyStateName, string>>;

  readonly forbiddenTitle: string;
  readonly forbiddenExplanation: (who: Html) => Html;
  readonly forbiddenWhatNow: string;
  readonly signedOutTitle: string;
  readonly signedOutExplanation: string;
  readonly signInAgain: string;
  readonly signInFailedTitle: string;
  readonly signInFailures: Readonly<Record<SignInFailure, string>>;
  readonly problemTitle: string;

  /** Users, identity providers, workload trusts (console-identity-*.ts). */
  readonly identity: ConsoleIdentityMessages;
}

/** Every text of the account page (/account), in one language. */
export interface AccountMessages {
  readonly title: string;
  /** The link on the login and consent pages. */
  readonly manageLink: string;
  readonly who: string;
  readonly name: string;
  readonly email: string;
  readonly notVerified: string;
  readonly userId: string;
  readonly signedIn: string;
  readonly withPassword: (when: string) => string;
  readonly throughProvider: (provider: string, when: string) => string;
  readonly appsTitle: string;
  readonly appsIntro: string;
  readonly noApps: string;
  readonly canDo: string;
  readonly noScope: string;
  readonly atServices: string;
  readonly connected: string;
  readonly lastUsed: string;
  readonly notKnown: string;
  readonly revoke: string;
  readonly revoked: (app: string) => string;
  readonly revokeGone: string;
  readonly everywhereTitle: string;
  readonly everywhereExplanation: string;
  readonly everywhereButton: string;
  readonly signedOutTitle: string;
  readonly signedOutExplanation: string;
  readonly signIn: string;
}
