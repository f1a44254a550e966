import { html } from '../html.js';
import type { Messages } from './types.js';

export const en: Messages = {
  lang: 'en',
  logoAlt: 'Logo',

  signInTitle: 'Sign in',
  toContinueTo: (client, mark) => html`to continue to ${client}${mark}`,
  selfRegisteredMark: ' (not pre-registered: it registered itself)',
  documentMark: (host) => ` (not pre-registered, from ${host})`,
  username: 'Username',
  password: 'Password',
  showPassword: 'Show password',
  signInButton: 'Sign in',
  wrongCredentials: 'Incorrect username or password.',
  signInBusy: 'Too many sign-ins are in progress right now. Please try again in a moment.',
  tooManyAttempts: (minutes) => `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,

  consentTitle: 'Allow access?',
  asksForAccess: (client) => html`${client} asks for access to your account`,
  notPreRegistered: 'Not pre-registered.',
  registeredItself: 'This application registered itself with this server',
  describesItselfAt: (host) => html`This application describes itself at ${host}`,
  notReviewed: '; the operator of this server has not reviewed it, and its name is its own claim.',
  goBackTo: (host) => html`If you allow, you go back to ${host}`,
  loopbackWarning:
    'That address is on this computer: any program running here could receive the access. Allow only if you started this application yourself just now.',
  atThisService: 'at this service:',
  atTheseServices: 'at these services:',
  withThesePermissions: 'with these permissions:',
  noScope: 'No specific permissions: it only learns that you signed in.',
  noScopeAtResources: 'No specific permissions: these services decide what it may do as you.',
  signedInAs: (subject) => html`Signed in as ${subject}.`,
  allow: 'Allow',
  deny: 'Deny',

  errorTitles: {
    invalid_authorization_request: 'Invalid authorization request',
    form_refused: 'Form refused',
    temporarily_unavailable: 'Temporarily unavailable',
    server_error: 'Something went wrong',
    not_found: 'Page not found',
    method_not_allowed: 'Method not allowed',
    invalid_request: 'Invalid request',
  },
  errorExplanations: {
    invalid_authorization_request:
      'The application that sent you here made an invalid request. You were not redirected back to it, for your safety.',
    form_refused: 'This form could not be accepted. Go back to the application and start again.',
    temporarily_unavailable: 'The service is busy or briefly unavailable. Please try again in a moment.',
    server_error: 'An unexpected error occurred on our side. Please try again later.',
    not_found: 'There is nothing at this address.',
    method_not_allowed: 'This address cannot be used this way.',
    invalid_request: 'The request could not be read.',
  },
  errorCode: 'Error code',
  reference: 'Reference',
  backTo: (client) => html`Back to ${client}`,
  closeWindow: 'You can close this window and return to the application.',

  continueTitle: 'Continue',
  continueWithoutScript: 'JavaScript is off: continue by pressing the button.',
  continueButton: 'Continue',
};
