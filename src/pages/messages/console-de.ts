import { html } from '../html.js';
import { consoleEntriesDe, entryNavDe, entryNoticesDe } from './console-entries-de.js';
import type { AccountMessages, ConsoleMessages } from './console-types.js';
import { identityDe, identityNavDe, identityNoticesDe } from './console-identity-de.js';

export const consoleDe: ConsoleMessages = {
  ...consoleEntriesDe,
  name: 'Konsole',
  navLabel: 'Konsole',
  nav: { overview: 'Übersicht', grants: 'Berechtigungen', keys: 'Signaturschlüssel', ...entryNavDe, ...identityNavDe },
  signOut: 'Abmelden',
  yourAccount: 'Ihr Konto',
  utc: 'UTC',
  yes: 'Ja',
  no: 'Nein',
  back: 'Zurück',
  nextPage: 'Nächste Seite',

  atAGlance: 'Auf einen Blick',
  clients: 'Clients',
  clientsBySource: ({ file, store, builtIn, registered }) =>
    `${file} aus der Client-Datei, ${store} hier angelegt, ${builtIn} eingebaut, ${registered} dynamisch registriert`,
  users: 'Benutzer',
  usersBySource: ({ file, store, federated }) =>
    `${file} aus der Benutzerdatei, ${store} hier angelegt, ${federated} über einen Identitätsanbieter angemeldet`,
  providers: 'Identitätsanbieter',
  activeGrants: 'Aktive Berechtigungen',
  activeGrantsNote: 'dieser Clients',
  lastHour: 'Die letzte Stunde',
  countedHere: 'Pro Minute gezählt von dieser Instanz des Servers, seit ihrem Start und für höchstens eine Stunde.',
  issuedTitle: 'Ausgestellte Tokens, nach Grant-Typ',
  issuedEmpty: 'In der letzten Stunde wurde kein Token ausgestellt.',
  refusedTitle: 'Abgelehnte Token-Anfragen, nach Fehler',
  refusedEmpty: 'In der letzten Stunde wurde keine Token-Anfrage abgelehnt.',
  chartDescription: (from, to, series) => `Pro Minute von ${from} bis ${to} UTC: ${series}.`,
  otherSeries: 'Andere',
  dataTable: 'Datentabelle',
  minute: 'Minute (UTC)',
  total: 'Summe',

  grantsIntro:
    'Die gültigen Berechtigungen eines Benutzers oder eines Clients. Eine widerrufene Berechtigung stoppt ihre Refresh-Tokens sofort; die Introspektion meldet ihre Access-Tokens als inaktiv.',
  user: 'Benutzer (sub)',
  client: 'Client-ID',
  showGrants: 'Berechtigungen anzeigen',
  grantsNeedFilter: 'Geben Sie einen Benutzer, einen Client oder beides an.',
  noGrants: 'Keine gültigen Berechtigungen.',
  grantsOf: (owner) => html`Gültige Berechtigungen von ${owner}`,
  grant: 'Berechtigung',
  scope: 'Scope',
  granted: 'Erteilt',
  expires: 'Läuft ab',
  actions: 'Aktionen',
  revoke: 'Widerrufen',
  revokeTitle: 'Diese Berechtigung widerrufen?',
  revokeExplanation: (user, client) =>
    html`Die Berechtigung von ${user} für ${client} endet sofort: Ihre Refresh-Tokens werden abgelehnt, und die Introspektion meldet ihre Access-Tokens als inaktiv.`,
  revokeButton: 'Berechtigung widerrufen',
  cancel: 'Abbrechen',
  notices: { 'grant-revoked': 'Die Berechtigung wurde widerrufen.', ...entryNoticesDe, ...identityNoticesDe },
  grantGone: 'Diese Berechtigung gilt nicht mehr: Sie ist abgelaufen oder wurde widerrufen.',

  keysIntro:
    'Die Schlüssel, mit denen dieser Server Tokens signiert, eine Kette pro Algorithmus. Schlüssel ändert der Befehl keys; diese Seite zeigt sie nur an.',
  chain: (alg) => `Kette ${alg}`,
  signsAccessTokens: 'Signiert Access-Tokens und ID-Tokens, die ihn verlangen.',
  signsIdTokens: 'Signiert ID-Tokens.',
  nextKeySigns: (kid, when) => html`Der nächste Schlüssel, ${kid}, signiert ab ${when}.`,
  noNextKey: 'Kein nächster Schlüssel ist geplant.',
  keyId: 'Schlüssel-ID',
  state: 'Zustand',
  published: 'Veröffentlicht',
  signsFrom: 'Signiert ab',
  signsUntil: 'Signiert bis',
  publishedUntil: 'Veröffentlicht bis',
  keyStates: { scheduled: 'Geplant', signing: 'Signiert', retiring: 'Im Ruhestand', expired: 'Abgelaufen' },

  forbiddenTitle: 'Ihr Konto ist kein Administrator dieses Servers',
  forbiddenExplanation: (who) =>
    html`Sie sind als ${who} angemeldet. Dem Token, das diese Konsole für Ihr Konto erhalten hat, fehlen die Admin-Scopes (admin:read und admin:write): Nur Konten mit der Rolle admin erhalten sie.`,
  forbiddenWhatNow:
    'Bitten Sie einen Administrator dieses Servers, Ihrem Konto die Rolle admin zu geben, oder melden Sie sich ab und mit einem anderen Konto an.',
  signedOutTitle: 'Sie sind von der Konsole abgemeldet',
  signedOutExplanation: 'Die Tokens der Konsole sind widerrufen, und Ihre Sitzung auf diesem Server ist beendet.',
  signInAgain: 'Erneut anmelden',
  signInFailedTitle: 'Die Anmeldung wurde nicht abgeschlossen',
  signInFailures: {
    expired: 'Diese Anmeldung hat länger als zehn Minuten gedauert oder wurde in einem anderen Browser begonnen.',
    mismatch: 'Die Antwort auf die Anmeldung gehört nicht zu der Anmeldung, die dieser Browser begonnen hat.',
    refused: 'Die Anmeldung wurde abgebrochen oder abgelehnt.',
    redeem: 'Die Anmeldung konnte nicht abgeschlossen werden: Ihr Code wurde abgelehnt.',
  },
  problemTitle: 'Die Änderung wurde nicht vorgenommen',

  // users, identity providers, workload trusts
  identity: identityDe,
};

export const accountDe: AccountMessages = {
  title: 'Ihr Konto',
  manageLink: 'Ihr Konto und verbundene Apps',
  who: 'Wer Sie sind',
  name: 'Name',
  email: 'E-Mail',
  notVerified: '(nicht bestätigt)',
  userId: 'Benutzer-ID',
  signedIn: 'Angemeldet',
  withPassword: (when) => `mit einem Passwort, ${when}`,
  throughProvider: (provider, when) => `über ${provider}, ${when}`,
  appsTitle: 'Verbundene Apps',
  appsIntro:
    'Die Apps, denen Sie erlaubt haben, für Sie zu handeln. Ein Widerruf nimmt den Zugriff sofort zurück: Die App muss Sie erneut fragen.',
  noApps: 'Sie haben keine App verbunden.',
  canDo: 'Sie darf:',
  noScope: 'Keine bestimmten Berechtigungen: Sie erfährt nur, dass Sie sich angemeldet haben.',
  atServices: 'Bei:',
  connected: 'Verbunden',
  lastUsed: 'Zuletzt verwendet',
  notKnown: 'Nicht bekannt',
  revoke: 'Zugriff widerrufen',
  revoked: (app) => `${app} hat keinen Zugriff mehr.`,
  revokeGone: 'Diese App hatte keinen Zugriff mehr.',
  everywhereTitle: 'Überall abmelden',
  everywhereExplanation:
    'Beendet jede Sitzung Ihres Kontos auf diesem Server, in jedem Browser, auch in diesem. Ihre verbundenen Apps behalten ihren Zugriff: Widerrufen Sie ihn oben.',
  everywhereButton: 'Überall abmelden',
  signedOutTitle: 'Sie sind überall abgemeldet',
  signedOutExplanation: 'Jede Sitzung Ihres Kontos auf diesem Server ist beendet.',
  signIn: 'Anmelden',
};
