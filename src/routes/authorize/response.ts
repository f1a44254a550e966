import type { FastifyReply } from 'fastify';
import type { Parameters } from '../../authorize/request.js';
import type { OAuthError } from '../../errors/index.js';
import { type ResponseTarget, redirectLocation } from '../../oauth/response-mode.js';
import { formPostPage } from '../../pages/authorization.js';
import { sendPage, formTargetOf } from '../../pages/html.js';
import type { PageView } from '../../pages/view.js';

export interface DeliveryOptions {
  readonly issuer: string;
  readonly afterPost: boolean;
  /** Writes the form_post page in the user's language. */
  readonly view: PageView;
}

/**
 * Delivers an authorization response or error to the client in its response mode,
 * adding `state` exactly as received and `iss` (RFC 9207 §2: "the authorization server
 * MUST include the iss parameter ... in the authorization response").
 * After a GET the redirect is 302; after a form POST it is 303, so the browser does not
 * re-send the form (RFC 9700 §4.11).
 */
export function sendToClient(reply: FastifyReply, target: ResponseTarget, params: Parameters, options: DeliveryOptions): FastifyReply {
  const all: Parameters = [...params, ...(target.state !== undefined ? [['state', target.state] as const] : []), ['iss', options.issuer]];
  if (target.responseMode === 'form_post') {
    return sendPage(reply, 200, formPostPage(options.view, target.redirectUri, all), { formTargets: [formTargetOf(target.redirectUri)] });
  }
  return reply
    .code(options.afterPost ? 303 : 302)
    .header('location', redirectLocation(target.redirectUri, target.responseMode, all))
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send();
}

export function sendErrorToClient(reply: FastifyReply, target: ResponseTarget, error: OAuthError, options: DeliveryOptions): FastifyReply {
  return sendToClient(
    reply,
    target,
    [
      ['error', error.error],
      ['error_description', error.description],
    ],
    options,
  );
}
