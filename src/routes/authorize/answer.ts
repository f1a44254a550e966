import type { FastifyReply, FastifyRequest } from 'fastify';
import { carriedForm } from '../../authorize/interaction.js';
import type { ConsentQuestion } from '../../authorize/consent.js';
import { type InteractionRequest, isDeviceVerification } from '../../authorize/device-request.js';
import type { AuthorizeOutcome } from '../../authorize/pipeline.js';
import type { SignInProblem } from '../../authorize/sign-in.js';
import {
  consentPage,
  type FormContext,
  loginPage,
  redirectTargetOf,
  type RequestedAccess,
  type UnregisteredClient,
  unregisteredClient,
} from '../../pages/authorization.js';
import { formTargetOf, sendPage } from '../../pages/html.js';
import type { Messages } from '../../pages/messages/index.js';
import { isIdentityScope } from '../../oauth/identity-scopes.js';
import { describeScope } from '../../resources/scope-descriptions.js';
import { SIGN_IN_MARK_PARAMETER } from '../../session/sign-in-mark.js';
import { displayedUserCode } from '../../device/user-code.js';
import { cookieJar, viewOf } from './browser.js';
import { answerDevice } from './device-answer.js';
import type { AuthorizeRouteOptions } from './options.js';
import { sendErrorToClient, sendToClient } from './response.js';

/** What each step of the pipeline (src/authorize/pipeline.ts) returns, as the browser gets it. */

export { viewOf } from './browser.js';

/** A client nobody registered: described by its metadata document, or registered by itself. */
function unregisteredOf({ client }: InteractionRequest): UnregisteredClient | undefined {
  if (client.fromMetadataDocument) return unregisteredClient(client.clientId);
  if (client.dynamicallyRegistered) return unregisteredClient(undefined);
  return undefined;
}

function formContext(
  endpoint: AuthorizeRouteOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  authorization: InteractionRequest,
  action: string,
): FormContext {
  const device = isDeviceVerification(authorization);
  return {
    action,
    ...carriedForm(authorization.parameters, cookieJar(request, reply), endpoint.pipeline),
    clientName: authorization.client.clientName ?? authorization.client.clientId,
    signOutAction: endpoint.paths.logout,
    logoUri: authorization.client.logoUri,
    ...(device
      ? { device: { userCode: displayedUserCode(authorization.device.userCode) } }
      : { redirect: redirectTargetOf(authorization.redirectUri) }),
    unregistered: unregisteredOf(authorization),
    accountPath: endpoint.paths.account,
  };
}

/** Where a page's forms may be redirected: the client's origin (a device has none: the forms stay here). */
function formTargetsOf(authorization: InteractionRequest): string[] {
  return isDeviceVerification(authorization) ? [] : [formTargetOf(authorization.redirectUri)];
}

/**
 * The resources, the scopes asked for and, in a step-up, those already shared, each scope
 * with its description in the page's language (the requested resources' first).
 */
function requestedAccess(
  endpoint: AuthorizeRouteOptions,
  authorization: InteractionRequest,
  question: ConsentQuestion,
  t: Messages,
): RequestedAccess {
  const describing = [...authorization.resources, ...endpoint.resources.all()];
  const described = (scopes: readonly string[]) =>
    scopes.map((scope) => ({
      scope,
      description: isIdentityScope(scope) ? t.identityScopes[scope] : describeScope(scope, t.lang, describing),
    }));
  return { resources: authorization.resources, scope: described(question.asked), shared: described(question.shared) };
}

/** The status, Retry-After and message of a login form that came back. */
function problemAnswer(problem: SignInProblem): { statusCode: number; retryAfter?: number; message: (t: Messages) => string } {
  switch (problem.reason) {
    case 'wrong_credentials':
      return { statusCode: 200, message: (t) => t.wrongCredentials };
    case 'throttled': {
      const minutes = Math.max(1, Math.ceil(problem.retryAfterSeconds / 60));
      return { statusCode: 429, retryAfter: problem.retryAfterSeconds, message: (t) => t.tooManyAttempts(minutes) };
    }
    case 'checks_in_flight':
      return { statusCode: 429, retryAfter: problem.retryAfterSeconds, message: (t) => t.signInChecksInFlight };
    case 'busy':
      return { statusCode: 503, retryAfter: problem.retryAfterSeconds, message: (t) => t.signInBusy };
  }
}

/**
 * Back to the authorization endpoint with the same request: 303 after a POST. After a
 * sign-in, the mark tells the endpoint the session was started for this request. A device
 * verification goes back to /device with its code.
 */
function restart(endpoint: AuthorizeRouteOptions, reply: FastifyReply, authorization: InteractionRequest, mark?: string): FastifyReply {
  const query = new URLSearchParams(authorization.parameters as [string, string][]);
  if (mark !== undefined) query.append(SIGN_IN_MARK_PARAMETER, mark);
  const path = isDeviceVerification(authorization) ? endpoint.paths.device : endpoint.paths.authorize;
  return reply.code(303).header('location', `${path}?${query.toString()}`).header('cache-control', 'no-store').send();
}

export function answer(
  endpoint: AuthorizeRouteOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  outcome: AuthorizeOutcome,
): FastifyReply {
  if (outcome.kind === 'device-code' || outcome.kind === 'device-decided') return answerDevice(endpoint, request, reply, outcome);
  const view = viewOf(endpoint, request);
  const delivery = { issuer: endpoint.issuer, afterPost: request.method === 'POST', view };
  // A page's form may end at the client at once (a sign-in whose consent is remembered, a
  // consent), and Chrome applies form-action to the redirects after the submission: the
  // pages allow the client's origin.
  const formTargets = formTargetsOf(outcome.request);
  switch (outcome.kind) {
    case 'sign-in': {
      const form = formContext(endpoint, request, reply, outcome.request, endpoint.paths.login);
      const came = outcome.problem && problemAnswer(outcome.problem.problem);
      if (came?.retryAfter !== undefined) reply.header('retry-after', String(came.retryAfter));
      const page = loginPage(view, form, {
        methods: outcome.methods,
        upstreamAction: endpoint.paths.upstream,
        message: came?.message(view.t),
        // OpenID Connect Core §3.1.2.1: login_hint fills in the username the user then confirms.
        username: outcome.problem?.username ?? outcome.request.loginHint,
        signedIn: outcome.signedIn,
      });
      // A provider button's form is redirected to the provider's authorization endpoint.
      const providers = outcome.methods.flatMap((m) => (m.kind === 'upstream' ? [m.origin] : []));
      return sendPage(reply, came?.statusCode ?? 200, page, { formTargets: [...formTargets, ...providers] });
    }
    case 'consent': {
      const form = formContext(endpoint, request, reply, outcome.request, endpoint.paths.consent);
      const page = consentPage(view, form, requestedAccess(endpoint, outcome.request, outcome.question, view.t), outcome.displayName);
      return sendPage(reply, 200, page, { formTargets });
    }
    case 'respond':
      return sendToClient(reply, outcome.request, outcome.parameters, delivery);
    case 'denied': {
      const denied = outcome.request;
      if (isDeviceVerification(denied))
        return answerDevice(endpoint, request, reply, { kind: 'denied', request: denied, error: outcome.error });
      return sendErrorToClient(reply, denied, outcome.error, delivery);
    }
    case 'restart':
      return restart(endpoint, reply, outcome.request, outcome.signInMark);
    case 'upstream':
      // 303: after the POST of a provider button, the browser follows with a GET.
      return reply
        .code(303)
        .header('location', outcome.location)
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .send();
  }
}
