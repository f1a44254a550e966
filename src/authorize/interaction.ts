import { type Clock, nowSeconds } from '../clock.js';
import { FormRefused, InvalidRequest } from '../errors/index.js';
import type { FormParams, Parameters } from '../oauth/form-params.js';
import type { BrowserSession, CookieJar } from '../session/browser-session.js';
import type { Signer } from '../session/signer.js';

/**
 * The interaction: an authorization request carried through the login and consent pages.
 * Its parameters travel in the pages' forms, signed so they cannot be altered on the way,
 * beside a CSRF token bound to the browser; the request is validated again on every step.
 */

/** How long a user has to get through the login and consent pages. */
const INTERACTION_TTL_SECONDS = 900;

export interface InteractionKeys {
  readonly signer: Signer;
  readonly session: BrowserSession;
  readonly clock: Clock;
}

/** What a login or consent form carries: the signed request and the CSRF token of this browser. */
export interface CarriedForm {
  readonly interaction: string;
  readonly csrfToken: string;
}

export function carriedForm(parameters: Parameters, browser: CookieJar, keys: InteractionKeys): CarriedForm {
  return {
    interaction: keys.signer.sign('interaction', parameters, nowSeconds(keys.clock) + INTERACTION_TTL_SECONDS),
    csrfToken: keys.session.csrfToken(browser),
  };
}

/** The request a signed `interaction` value carries; an expired or altered one is refused. */
export function carriedParameters(interaction: string | undefined, keys: Pick<InteractionKeys, 'signer' | 'clock'>): Parameters {
  const parameters = keys.signer.verify<Parameters>('interaction', interaction, nowSeconds(keys.clock));
  if (!parameters || !Array.isArray(parameters)) {
    throw new InvalidRequest('this form has expired or was altered: go back to the application and start again');
  }
  return parameters;
}

/**
 * The request a submitted login or consent form carries: refused (403) without this
 * browser's CSRF token, before anything else is read.
 */
export function submittedParameters(fields: FormParams, browser: CookieJar, keys: InteractionKeys): Parameters {
  if (!keys.session.csrfTokenValid(browser, fields.get('csrf_token'))) {
    throw new FormRefused('this form was not sent from this site, or your session changed: go back to the application and start again');
  }
  return carriedParameters(fields.get('interaction'), keys);
}
