import type { IdentityScope } from '../../oauth/identity-scopes.js';
import type { Html } from '../html.js';
import type { AccountMessages, ConsoleMessages } from './console-types.js';

/** The kinds of error page: each has its own title and explanation. */
export const ERROR_KINDS = [
  'invalid_authorization_request',
  'form_refused',
  'temporarily_unavailable',
  'server_error',
  'not_found',
  'method_not_allowed',
  'invalid_request',
  'upstream_callback',
  'upstream_unavailable',
  'device_verification',
  'device_sign_in',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/**
 * Every text of the pages, in one language. Functions take the values they place, already
 * escaped where they are Html; the catalogue places them with the `html` template.
 */
export interface Messages {
  /** The language tag of the `lang` attribute (BCP 47). */
  readonly lang: string;
  /** What the consent page says each OpenID Connect scope shares (openid, profile, email, address, phone, offline_access). */
  readonly identityScopes: Readonly<Record<IdentityScope, string>>;
  readonly logoAlt: string;

  readonly signInTitle: string;
  readonly toContinueTo: (client: Html, mark: Html) => Html;
  readonly selfRegisteredMark: string;
  readonly documentMark: (host: string) => string;
  readonly username: string;
  readonly password: string;
  readonly showPassword: string;
  readonly signInButton: string;
  readonly wrongCredentials: string;
  readonly signInBusy: string;
  /** The limit is held by other attempts still being checked, not by failures (a retry soon may pass). */
  readonly signInChecksInFlight: string;
  readonly tooManyAttempts: (minutes: number) => string;
  /** The button of an upstream identity provider: its accessible name is exactly this. */
  readonly continueWith: (provider: string) => string;
  /** Between the password form and the provider buttons. */
  readonly or: string;

  readonly consentTitle: string;
  readonly asksForAccess: (client: Html) => Html;
  /** A step-up: the client comes back for more than the user approved before. */
  readonly asksForMoreAccess: (client: Html) => Html;
  readonly notPreRegistered: string;
  readonly registeredItself: string;
  readonly describesItselfAt: (host: Html) => Html;
  readonly notReviewed: string;
  readonly goBackTo: (host: Html) => Html;
  readonly loopbackWarning: string;
  readonly atThisService: string;
  readonly atTheseServices: string;
  readonly withThesePermissions: string;
  /** A step-up: before the new permissions. */
  readonly withTheseNewPermissions: string;
  /** A step-up: before the permissions approved before, which the client keeps. */
  readonly alreadyShared: (client: Html) => Html;
  readonly noScope: string;
  readonly noScopeAtResources: string;
  readonly signedInAs: (subject: Html) => Html;
  readonly notYou: string;
  readonly signInAgain: string;
  readonly signOutTitle: string;
  readonly asksYouToSignOut: (client: Html) => Html;
  readonly signOutButton: string;
  readonly signedOutTitle: string;
  readonly signedOutExplanation: string;
  readonly allow: string;
  readonly deny: string;

  /** The device flow (RFC 8628): the page to type the code a device shows, and what follows it. */
  readonly deviceTitle: string;
  readonly deviceIntro: string;
  /** verification_uri_complete filled the code in: the user compares it with the device's (§3.3.1). */
  readonly deviceConfirm: string;
  readonly userCode: string;
  readonly wrongUserCode: string;
  readonly tooManyUserCodes: (minutes: number) => string;
  readonly deviceAsksForAccess: (client: Html) => Html;
  readonly deviceCodeShown: (code: Html) => Html;
  /** The warning against remote phishing (RFC 8628 §5.4) on the device's consent page. */
  readonly deviceWarning: string;
  readonly deviceApprovedTitle: string;
  readonly deviceApprovedExplanation: (client: Html) => Html;
  readonly deviceDeniedTitle: string;
  readonly deviceDeniedExplanation: string;

  readonly errorTitles: Readonly<Record<ErrorKind, string>>;
  readonly errorExplanations: Readonly<Record<ErrorKind, string>>;
  readonly errorCode: string;
  readonly reference: string;
  readonly backTo: (client: Html) => Html;
  readonly closeWindow: string;

  readonly continueTitle: string;
  readonly continueWithoutScript: string;
  readonly continueButton: string;

  /** The console at /admin (console-types.ts). */
  readonly console: ConsoleMessages;
  /** The account page at /account. */
  readonly account: AccountMessages;
}
