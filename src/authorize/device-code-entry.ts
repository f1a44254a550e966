import { nowSeconds } from '../clock.js';
import { displayedUserCode, normaliseUserCode } from '../device/user-code.js';
import { FormRefused } from '../errors/index.js';
import type { FormParams } from '../oauth/form-params.js';
import type { CookieJar } from '../session/browser-session.js';
import { isSignInMarkFor } from '../session/sign-in-mark.js';
import { carriedDeviceVerification, deviceParameters, deviceVerificationOf } from './device-request.js';
import { type AuthorizeDependencies, type AuthorizeOutcome, interact } from './pipeline.js';

/**
 * /device, the verification URI of the device authorization grant (RFC 8628 §3.3): where the
 * user types the code their device shows. A code that names a pending authorization enters the
 * pipeline at step 2 (sign-in, then consent); any other gets the same answer.
 */

/** Why the code page came back: a code that names nothing pending (never which), or too many such codes (§5.1). */
export type DeviceCodeProblem = { readonly reason: 'wrong_code' } | { readonly reason: 'throttled'; readonly retryAfterSeconds: number };

/** The most characters of a typed code a page shows back. */
const MAX_SHOWN = 64;

function shown(typed: string | undefined): string | undefined {
  if (typed === undefined || typed.length > MAX_SHOWN) return undefined;
  const normalised = normaliseUserCode(typed);
  return normalised === undefined ? typed : displayedUserCode(normalised);
}

/**
 * GET /device. With `user_code` (verification_uri_complete) the code is filled in, and the user
 * still confirms it: §3.3.1 "the authorization server SHOULD display the code to the user and
 * ask them to verify that it matches the user_code being displayed on the device". Back from a
 * sign-in made for this very code in this browser (its mark, as at the authorization endpoint),
 * straight on to the consent page.
 */
export async function deviceCodePage(
  query: { readonly userCode?: string | undefined; readonly mark?: string | undefined },
  browser: CookieJar,
  deps: AuthorizeDependencies,
): Promise<AuthorizeOutcome> {
  const normalised = query.userCode === undefined ? undefined : normaliseUserCode(query.userCode);
  if (normalised !== undefined && query.mark !== undefined) {
    const parameters = deviceParameters(normalised);
    const user = deps.session.current(browser);
    if (isSignInMarkFor(deps.signer, query.mark, user, parameters, nowSeconds(deps.clock)))
      return interact(await carriedDeviceVerification(parameters, deps), query.mark, browser, deps);
  }
  return { kind: 'device-code', userCode: shown(query.userCode) };
}

/**
 * POST /device: the code the user typed (or confirmed), with the page's CSRF token. §5.1: the
 * attempt is reserved on the limits before the code is looked up; a code that names a pending
 * authorization is given back, any other stays counted and gets the same page.
 */
export async function enterUserCode(
  form: FormParams,
  browser: CookieJar,
  clientAddress: string,
  deps: AuthorizeDependencies,
): Promise<AuthorizeOutcome> {
  if (!deps.session.csrfTokenValid(browser, form.get('csrf_token'))) {
    throw new FormRefused('this form was not sent from this site, or your session changed: open the page again and enter the code');
  }
  const typed = form.get('user_code') ?? '';
  const verifying = deps.device;
  if (!verifying) return { kind: 'device-code', userCode: shown(typed), problem: { reason: 'wrong_code' } };
  const attempt = await verifying.attempts.reserve(clientAddress);
  if (!attempt.reserved) {
    return { kind: 'device-code', userCode: shown(typed), problem: { reason: 'throttled', retryAfterSeconds: attempt.retryAfterSeconds } };
  }
  let found;
  try {
    found = await verifying.devices.pending(typed);
  } catch (err) {
    // Nothing was checked: the attempt is given back.
    await attempt.settle(true).catch(() => undefined);
    throw err;
  }
  await attempt.settle(found !== undefined);
  if (!found) return { kind: 'device-code', userCode: shown(typed), problem: { reason: 'wrong_code' } };
  return interact(await deviceVerificationOf(found, deps.registries), undefined, browser, deps);
}
