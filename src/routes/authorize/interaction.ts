import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AuthorizationRequest, type Parameters, validateAuthorizationRequest } from '../../authorize/request.js';
import { nowSeconds } from '../../clock.js';
import { FormRefused, InvalidRequest, StoreUnavailableError, TemporarilyUnavailable } from '../../errors.js';
import { FormParams } from '../../oauth/form-params.js';
import {
  consentPage,
  type FormContext,
  loginPage,
  redirectTargetOf,
  type RequestedAccess,
  type UnregisteredClient,
  unregisteredClient,
} from '../../pages/authorization.js';
import { sendPage, formTargetOf } from '../../pages/html.js';
import type { Messages } from '../../pages/messages/index.js';
import type { PageView } from '../../pages/view.js';
import { describeScope } from '../../resources/scope-descriptions.js';
import { SIGN_IN_MARK_PARAMETER } from '../../session/sign-in-mark.js';
import { cookieJar } from './cookies.js';
import type { AuthorizeRouteOptions } from './options.js';

/**
 * The interaction: an authorization request carried through the login and consent pages.
 * The request's parameters travel in the forms, signed so they cannot be altered on the
 * way, and are validated again on every step.
 */

/** How long a user has to get through the login and consent pages. */
const INTERACTION_TTL_SECONDS = 900;

/** The pages in the language the browser prefers (Accept-Language). */
export function viewOf(endpoint: AuthorizeRouteOptions, request: FastifyRequest): PageView {
  return endpoint.pages.viewFor(request.headers['accept-language']);
}

export function validate(endpoint: AuthorizeRouteOptions, parameters: Parameters): Promise<AuthorizationRequest> {
  return validateAuthorizationRequest(parameters, endpoint, endpoint.codeResponseMode);
}

export function readInteraction(endpoint: AuthorizeRouteOptions, value: string | undefined): Parameters {
  const parameters = endpoint.signer.verify<Parameters>('interaction', value, nowSeconds(endpoint.clock));
  if (!parameters || !Array.isArray(parameters)) {
    throw new InvalidRequest('this form has expired or was altered: go back to the application and start again');
  }
  return parameters;
}

export interface SubmittedForm {
  readonly fields: FormParams;
  readonly authorization: AuthorizationRequest;
}

/**
 * Reads a login or consent form: refuses it (403) without a valid CSRF token, then
 * validates again the authorization request it carries.
 */
export async function readSubmittedForm(
  endpoint: AuthorizeRouteOptions,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<SubmittedForm> {
  if (!Array.isArray(request.body)) throw new InvalidRequest('forms must be sent as application/x-www-form-urlencoded');
  const fields = FormParams.fromEntries(request.body as [string, string][]);
  if (!endpoint.session.csrfTokenValid(cookieJar(request, reply), fields.get('csrf_token'))) {
    throw new FormRefused('this form was not sent from this site, or your session changed: go back to the application and start again');
  }
  return { fields, authorization: await validate(endpoint, readInteraction(endpoint, fields.get('interaction'))) };
}

/**
 * Runs a step that needs the store once the request is known valid. Fail closed: a store
 * that does not answer issues nothing, and the client hears `temporarily_unavailable`
 * (RFC 6749 §4.1.2.1) at its redirect URI.
 */
export async function sendingStoreFailuresToClient<T>(authorization: AuthorizationRequest, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof StoreUnavailableError)
      throw new TemporarilyUnavailable(undefined, undefined, { cause: err }).redirectingTo(authorization);
    throw err;
  }
}

function formContext(
  endpoint: AuthorizeRouteOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  authorization: AuthorizationRequest,
  action: string,
): FormContext {
  return {
    action,
    interaction: endpoint.signer.sign('interaction', authorization.parameters, nowSeconds(endpoint.clock) + INTERACTION_TTL_SECONDS),
    csrfToken: endpoint.session.csrfToken(cookieJar(request, reply)),
    clientName: authorization.client.clientName ?? authorization.client.clientId,
    signOutAction: endpoint.paths.logout,
    logoUri: authorization.client.logoUri,
    redirect: redirectTargetOf(authorization.redirectUri),
    unregistered: unregisteredOf(authorization),
  };
}

/** A client nobody registered: described by its metadata document, or registered by itself. */
function unregisteredOf({ client }: AuthorizationRequest): UnregisteredClient | undefined {
  if (client.fromMetadataDocument) return unregisteredClient(client.clientId);
  if (client.dynamicallyRegistered) return unregisteredClient(undefined);
  return undefined;
}

/** The resources and scopes asked for, each scope with its description in `language` (the requested resources' first). */
function requestedAccess(endpoint: AuthorizeRouteOptions, authorization: AuthorizationRequest, language: string): RequestedAccess {
  const describing = [...authorization.resources, ...endpoint.resources.all()];
  return {
    resources: authorization.resources,
    scope: authorization.scope.map((scope) => ({ scope, description: describeScope(scope, language, describing) })),
  };
}

/** `signedIn`: the subject of a session that must sign in again (prompt=login, max_age). */
export function showLogin(
  endpoint: AuthorizeRouteOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  authorization: AuthorizationRequest,
  problem?: { statusCode: number; message: (t: Messages) => string; username?: string },
  signedIn?: string,
): FastifyReply {
  const form = formContext(endpoint, request, reply, authorization, endpoint.paths.login);
  const view = viewOf(endpoint, request);
  // A sign-in may end at the client at once (consent remembered or not needed), and Chrome
  // applies form-action to the redirects after the submission: allow the client's origin.
  return sendPage(reply, problem?.statusCode ?? 200, loginPage(view, form, problem?.message(view.t), problem?.username, signedIn), {
    formTargets: [formTargetOf(authorization.redirectUri)],
  });
}

export function showConsent(
  endpoint: AuthorizeRouteOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  authorization: AuthorizationRequest,
  sub: string,
): FastifyReply {
  const form = formContext(endpoint, request, reply, authorization, endpoint.paths.consent);
  // Chrome applies form-action to the redirect that follows the submission: allow the client's origin.
  const view = viewOf(endpoint, request);
  return sendPage(reply, 200, consentPage(view, form, requestedAccess(endpoint, authorization, view.t.lang), sub), {
    formTargets: [formTargetOf(authorization.redirectUri)],
  });
}

/**
 * Back to the authorization endpoint with the same request (after sign-in, or when the
 * session ended): 303 after a POST. After a sign-in, `signInMark` tells the endpoint the
 * session was started for this request (src/session/sign-in-mark.ts).
 */
export function returnToAuthorize(
  endpoint: AuthorizeRouteOptions,
  reply: FastifyReply,
  authorization: AuthorizationRequest,
  signInMark?: string,
): FastifyReply {
  const query = new URLSearchParams(authorization.parameters as [string, string][]);
  if (signInMark !== undefined) query.append(SIGN_IN_MARK_PARAMETER, signInMark);
  const location = `${endpoint.paths.authorize}?${query.toString()}`;
  return reply.code(303).header('location', location).header('cache-control', 'no-store').send();
}
