import { html } from '../html.js';
import { consoleEntriesEn, entryNavEn, entryNoticesEn } from './console-entries-en.js';
import type { AccountMessages, ConsoleMessages } from './console-types.js';
import { identityEn, identityNavEn, identityNoticesEn } from './console-identity-en.js';

export const consoleEn: ConsoleMessages = {
  ...consoleEntriesEn,
  name: 'Console',
  navLabel: 'Console',
  nav: { overview: 'Overview', grants: 'Grants', keys: 'Signing keys', ...entryNavEn, ...identityNavEn },
  signOut: 'Sign out',
  yourAccount: 'Your account',
  utc: 'UTC',
  yes: 'Yes',
  no: 'No',
  back: 'Back',
  nextPage: 'Next page',

  atAGlance: 'At a glance',
  clients: 'Clients',
  clientsBySource: ({ file, store, builtIn, registered }) =>
    `${file} from the clients file, ${store} added here, ${builtIn} built in, ${registered} registered dynamically`,
  users: 'Users',
  usersBySource: ({ file, store, federated }) =>
    `${file} from the users file, ${store} added here, ${federated} signed in through a provider`,
  providers: 'Identity providers',
  activeGrants: 'Active grants',
  activeGrantsNote: 'of these clients',
  lastHour: 'The last hour',
  countedHere: 'Counted per minute by this instance of the server, since it started and for at most an hour.',
  issuedTitle: 'Tokens issued, by grant type',
  issuedEmpty: 'No token was issued in the last hour.',
  refusedTitle: 'Token requests refused, by error',
  refusedEmpty: 'No token request was refused in the last hour.',
  chartDescription: (from, to, series) => `Per minute from ${from} to ${to} UTC: ${series}.`,
  otherSeries: 'Other',
  dataTable: 'Data table',
  minute: 'Minute (UTC)',
  total: 'Total',

  grantsIntro:
    'The live grants of a user or of a client. Revoking a grant stops its refresh tokens at once; introspection reports its access tokens inactive.',
  user: 'User (sub)',
  client: 'Client ID',
  showGrants: 'Show grants',
  grantsNeedFilter: 'Enter a user, a client, or both.',
  noGrants: 'No live grants.',
  grantsOf: (owner) => html`Live grants of ${owner}`,
  grant: 'Grant',
  scope: 'Scope',
  granted: 'Granted',
  expires: 'Expires',
  actions: 'Actions',
  revoke: 'Revoke',
  revokeTitle: 'Revoke this grant?',
  revokeExplanation: (user, client) =>
    html`The grant of ${user} to ${client} stops at once: its refresh tokens are refused, and introspection reports its access tokens inactive.`,
  revokeButton: 'Revoke the grant',
  cancel: 'Cancel',
  notices: { 'grant-revoked': 'The grant was revoked.', ...entryNoticesEn, ...identityNoticesEn },
  grantGone: 'This grant is not live any more: it expired or was revoked.',

  keysIntro:
    'The keys this server signs tokens with, one chain per algorithm. Keys change with the keys command; this page only shows them.',
  chain: (alg) => `${alg} chain`,
  signsAccessTokens: 'Signs access tokens and ID tokens that ask for it.',
  signsIdTokens: 'Signs ID tokens.',
  nextKeySigns: (kid, when) => html`The next key, ${kid}, signs from ${when}.`,
  noNextKey: 'No next key is scheduled.',
  keyId: 'Key ID',
  state: 'State',
  published: 'Published',
  signsFrom: 'Signs from',
  signsUntil: 'Signs until',
  publishedUntil: 'Published until',
  keyStates: { scheduled: 'Scheduled', signing: 'Signing', retiring: 'Retiring', expired: 'Expired' },

  forbiddenTitle: 'Your account is not an administrator of this server',
  forbiddenExplanation: (who) =>
    html`You are signed in as ${who}. The token this console received for your account lacks the admin scopes (admin:read and admin:write): only accounts with the role admin receive them.`,
  forbiddenWhatNow:
    'Ask an administrator of this server to give your account the role admin, or sign out and sign in with another account.',
  signedOutTitle: 'You are signed out of the console',
  signedOutExplanation: "The console's tokens are revoked and your session on this server has ended.",
  signInAgain: 'Sign in again',
  signInFailedTitle: 'Sign-in did not complete',
  signInFailures: {
    expired: 'This sign-in took longer than ten minutes, or was started in another browser.',
    mismatch: 'The answer to the sign-in does not belong to the sign-in this browser started.',
    refused: 'The sign-in was cancelled or refused.',
    redeem: 'The sign-in could not be completed: its code was refused.',
  },
  problemTitle: 'The change was not made',

  // users, identity providers, workload trusts
  identity: identityEn,
};

export const accountEn: AccountMessages = {
  title: 'Your account',
  manageLink: 'Your account and connected apps',
  who: 'Who you are',
  name: 'Name',
  email: 'Email',
  notVerified: '(not verified)',
  userId: 'User ID',
  signedIn: 'Signed in',
  withPassword: (when) => `with a password, ${when}`,
  throughProvider: (provider, when) => `through ${provider}, ${when}`,
  appsTitle: 'Connected apps',
  appsIntro: 'The apps you allowed to act for you. Revoking one takes its access back at once: it has to ask you again.',
  noApps: 'You have not connected any app.',
  canDo: 'It may:',
  noScope: 'No specific permissions: it only learns that you signed in.',
  atServices: 'At:',
  connected: 'Connected',
  lastUsed: 'Last used',
  notKnown: 'Not known',
  revoke: 'Revoke access',
  revoked: (app) => `${app} no longer has access.`,
  revokeGone: 'This app had no access any more.',
  everywhereTitle: 'Sign out everywhere',
  everywhereExplanation:
    'Ends every session of your account on this server, in every browser, this one included. Your connected apps keep their access: revoke them above.',
  everywhereButton: 'Sign out everywhere',
  signedOutTitle: 'You are signed out everywhere',
  signedOutExplanation: 'Every session of your account on this server has ended.',
  signIn: 'Sign in',
};
