/** The pages of the authorization endpoint: login, consent, error and form_post. */
export { type RedirectTarget, redirectTargetOf, type UnregisteredClient, unregisteredClient } from './client-display.js';
export { consentPage, type RequestedAccess } from './consent.js';
export { type ErrorPageContent, errorPage } from './error.js';
export { type FormContext } from './form-context.js';
export { formPostPage } from './form-post.js';
export { loginPage } from './login.js';
