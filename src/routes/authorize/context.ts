import type { FastifyReply, FastifyRequest } from 'fastify';
import { validateAuthorizationRequest, type AuthorizationRequest, type AuthorizationRequestOutcome, type Parameters } from '../../authorize/request.js';
import type { AuthorizeServices } from '../../authorize/respond.js';
import type { ClientRegistry } from '../../clients/registry.js';
import { InvalidRequest } from '../../errors.js';
import { sendErrorToClient } from '../../http/authorization-response.js';
import type { BrowserSession } from '../../http/browser-session.js';
import type { Signer } from '../../http/signer.js';
import { consentPage, errorPage, loginPage, type FormContext } from '../../pages/authorization.js';
import { sendPage } from '../../pages/html.js';
import type { UserRegistry } from '../../users/registry.js';
import type { PasswordSignIn } from '../../users/sign-in.js';

/** What the authorization endpoint's routes share. */
export interface AuthorizeContext extends AuthorizeServices {
  readonly issuer: string;
  readonly paths: { readonly authorize: string; readonly login: string; readonly consent: string };
  readonly clients: ClientRegistry;
  readonly users: UserRegistry;
  /** Password sign-in with the limits shared with the password grant. */
  readonly signIn: PasswordSignIn;
  readonly signer: Signer;
  readonly session: BrowserSession;
  readonly clock: () => number;
  readonly codeResponseMode: 'query' | 'fragment';
}

/** How long a user has to get through the login and consent pages. */
const INTERACTION_TTL_SECONDS = 900;

export function nowSeconds(ctx: AuthorizeContext): number {
  return Math.floor(ctx.clock() / 1000);
}

export function validate(ctx: AuthorizeContext, parameters: Parameters): AuthorizationRequestOutcome {
  return validateAuthorizationRequest(parameters, ctx.clients, ctx.codeResponseMode);
}

/** The authorization request carried through the forms, signed so it cannot be altered on the way. */
export function readInteraction(ctx: AuthorizeContext, value: string | undefined): Parameters {
  const parameters = ctx.signer.verify<Parameters>('interaction', value, nowSeconds(ctx));
  if (!parameters || !Array.isArray(parameters)) {
    throw new InvalidRequest('this form has expired or was altered: go back to the application and start again');
  }
  return parameters;
}

function formContext(ctx: AuthorizeContext, request: FastifyRequest, reply: FastifyReply, authorization: AuthorizationRequest, action: string): FormContext {
  return {
    action,
    interaction: ctx.signer.sign('interaction', authorization.parameters, nowSeconds(ctx) + INTERACTION_TTL_SECONDS),
    csrfToken: ctx.session.csrfToken(request, reply),
    clientName: authorization.client.clientName ?? authorization.client.clientId,
  };
}

export function showLogin(
  ctx: AuthorizeContext,
  request: FastifyRequest,
  reply: FastifyReply,
  authorization: AuthorizationRequest,
  problem?: { statusCode: number; message: string; username?: string },
): FastifyReply {
  const form = formContext(ctx, request, reply, authorization, ctx.paths.login);
  return sendPage(reply, problem?.statusCode ?? 200, loginPage(form, problem?.message, problem?.username));
}

export function showConsent(ctx: AuthorizeContext, request: FastifyRequest, reply: FastifyReply, authorization: AuthorizationRequest, sub: string): FastifyReply {
  const form = formContext(ctx, request, reply, authorization, ctx.paths.consent);
  // Chrome applies form-action to the redirect that follows the submission: allow the client's origin.
  return sendPage(reply, 200, consentPage(form, authorization.scope, sub), { formTargets: [new URL(authorization.redirectUri).origin] });
}

/** Handles the two outcomes that end before any page: refusal (no redirect) and errors sent to the client. */
export function sendUnlessValid(
  ctx: AuthorizeContext,
  reply: FastifyReply,
  outcome: AuthorizationRequestOutcome,
  afterPost: boolean,
): AuthorizationRequest | undefined {
  if (outcome.outcome === 'refused') {
    sendPage(reply, 400, errorPage('Invalid authorization request', outcome.description));
    return undefined;
  }
  if (outcome.outcome === 'error') {
    sendErrorToClient(reply, outcome.target, outcome.error, { issuer: ctx.issuer, afterPost });
    return undefined;
  }
  return outcome.request;
}

/** The GET URL of the authorization endpoint for these parameters (where login returns to). */
export function authorizeUrl(ctx: AuthorizeContext, parameters: Parameters): string {
  return `${ctx.paths.authorize}?${new URLSearchParams(parameters as [string, string][]).toString()}`;
}
