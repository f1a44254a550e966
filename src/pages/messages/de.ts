import { html } from '../html.js';
import type { Messages } from './types.js';

export const de: Messages = {
  lang: 'de',
  logoAlt: 'Logo',

  signInTitle: 'Anmelden',
  toContinueTo: (client, mark) => html`um mit ${client}${mark} fortzufahren`,
  selfRegisteredMark: ' (nicht vorab registriert: hat sich selbst registriert)',
  documentMark: (host) => ` (nicht vorab registriert, von ${host})`,
  username: 'Benutzername',
  password: 'Passwort',
  showPassword: 'Passwort anzeigen',
  signInButton: 'Anmelden',
  wrongCredentials: 'Benutzername oder Passwort ist falsch.',
  signInBusy: 'Gerade laufen zu viele Anmeldungen. Bitte versuchen Sie es gleich noch einmal.',
  signInChecksInFlight: 'Andere Anmeldeversuche werden gerade noch geprüft. Bitte versuchen Sie es gleich noch einmal.',
  tooManyAttempts: (minutes) =>
    `Zu viele fehlgeschlagene Anmeldeversuche. Versuchen Sie es in ${minutes} Minute${minutes === 1 ? '' : 'n'} erneut.`,

  consentTitle: 'Zugriff erlauben?',
  asksForAccess: (client) => html`${client} bittet um Zugriff auf Ihr Konto`,
  notPreRegistered: 'Nicht vorab registriert.',
  registeredItself: 'Diese Anwendung hat sich selbst bei diesem Server registriert',
  describesItselfAt: (host) => html`Diese Anwendung beschreibt sich selbst unter ${host}`,
  notReviewed: '; der Betreiber dieses Servers hat sie nicht geprüft, und Name und Logo sind ihre eigenen Angaben.',
  goBackTo: (host) => html`Wenn Sie zustimmen, kehren Sie zurück zu ${host}`,
  loopbackWarning:
    'Diese Adresse liegt auf diesem Computer: Jedes hier laufende Programm könnte den Zugriff erhalten. Stimmen Sie nur zu, wenn Sie diese Anwendung gerade selbst gestartet haben.',
  atThisService: 'bei diesem Dienst:',
  atTheseServices: 'bei diesen Diensten:',
  withThesePermissions: 'mit diesen Berechtigungen:',
  noScope: 'Keine besonderen Berechtigungen: Die Anwendung erfährt nur, dass Sie sich angemeldet haben.',
  noScopeAtResources: 'Keine besonderen Berechtigungen: Diese Dienste entscheiden, was die Anwendung in Ihrem Namen tun darf.',
  signedInAs: (subject) => html`Angemeldet als ${subject}.`,
  notYou: 'Nicht Sie?',
  signInAgain: 'Diese Anwendung bittet Sie, sich erneut anzumelden.',
  signOutTitle: 'Abmelden?',
  asksYouToSignOut: (client) => html`${client} bittet Sie, sich abzumelden.`,
  signOutButton: 'Abmelden',
  signedOutTitle: 'Sie sind abgemeldet',
  signedOutExplanation: 'Sie können dieses Fenster schließen.',
  allow: 'Erlauben',
  deny: 'Ablehnen',

  errorTitles: {
    invalid_authorization_request: 'Ungültige Autorisierungsanfrage',
    form_refused: 'Formular abgelehnt',
    temporarily_unavailable: 'Vorübergehend nicht verfügbar',
    server_error: 'Etwas ist schiefgelaufen',
    not_found: 'Seite nicht gefunden',
    method_not_allowed: 'Methode nicht erlaubt',
    invalid_request: 'Ungültige Anfrage',
  },
  errorExplanations: {
    invalid_authorization_request:
      'Die Anwendung, die Sie hierher geschickt hat, hat eine ungültige Anfrage gestellt. Zu Ihrer Sicherheit wurden Sie nicht zu ihr zurückgeleitet.',
    form_refused: 'Dieses Formular konnte nicht angenommen werden. Kehren Sie zur Anwendung zurück und beginnen Sie erneut.',
    temporarily_unavailable: 'Der Dienst ist ausgelastet oder kurz nicht erreichbar. Bitte versuchen Sie es gleich noch einmal.',
    server_error: 'Bei uns ist ein unerwarteter Fehler aufgetreten. Bitte versuchen Sie es später erneut.',
    not_found: 'Unter dieser Adresse gibt es nichts.',
    method_not_allowed: 'Diese Adresse kann so nicht verwendet werden.',
    invalid_request: 'Die Anfrage konnte nicht gelesen werden.',
  },
  errorCode: 'Fehlercode',
  reference: 'Referenz',
  backTo: (client) => html`Zurück zu ${client}`,
  closeWindow: 'Sie können dieses Fenster schließen und zur Anwendung zurückkehren.',

  continueTitle: 'Weiter',
  continueWithoutScript: 'JavaScript ist ausgeschaltet: Fahren Sie mit der Schaltfläche fort.',
  continueButton: 'Weiter',
};
