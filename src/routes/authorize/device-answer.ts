import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DeviceVerificationRequest } from '../../authorize/device-request.js';
import type { AuthorizeOutcome } from '../../authorize/pipeline.js';
import type { OAuthError } from '../../errors/index.js';
import { deviceCodePage, deviceDecidedPage } from '../../pages/device.js';
import { sendPage } from '../../pages/html.js';
import type { Messages } from '../../pages/messages/index.js';
import type { DeviceCodeProblem } from '../../authorize/device-code-entry.js';
import { cookieJar, viewOf } from './browser.js';
import { sendErrorPage } from './error-answer.js';
import type { AuthorizeRouteOptions } from './options.js';

/** What the device flow's own steps (RFC 8628 §3.3) return, as the browser gets it: pages only, nothing is redirected. */
export type DeviceOutcome =
  | Extract<AuthorizeOutcome, { kind: 'device-code' | 'device-decided' }>
  /** A sign-in at an upstream provider that failed: the device is not denied, the user may try again. */
  | { readonly kind: 'denied'; readonly request: DeviceVerificationRequest; readonly error: OAuthError };

/** The status, Retry-After and message of a code page that came back. */
function problemAnswer(problem: DeviceCodeProblem | undefined, t: Messages): { status: number; retryAfter?: number; message?: string } {
  if (problem === undefined) return { status: 200 };
  if (problem.reason === 'wrong_code') return { status: 200, message: t.wrongUserCode };
  const minutes = Math.max(1, Math.ceil(problem.retryAfterSeconds / 60));
  return { status: 429, retryAfter: problem.retryAfterSeconds, message: t.tooManyUserCodes(minutes) };
}

export function answerDevice(
  endpoint: AuthorizeRouteOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  outcome: DeviceOutcome,
): FastifyReply {
  const view = viewOf(endpoint, request);
  switch (outcome.kind) {
    case 'device-code': {
      const came = problemAnswer(outcome.problem, view.t);
      if (came.retryAfter !== undefined) reply.header('retry-after', String(came.retryAfter));
      const csrfToken = endpoint.pipeline.session.csrfToken(cookieJar(request, reply));
      const page = deviceCodePage(view, { action: endpoint.paths.device, csrfToken, userCode: outcome.userCode, message: came.message });
      return sendPage(reply, came.status, page);
    }
    case 'device-decided': {
      if (outcome.decision === 'gone')
        return sendErrorPage(endpoint, request, reply, 400, {
          kind: 'device_verification',
          error: 'invalid_request',
          description: 'this code was already used or has expired',
        });
      const { client } = outcome.request;
      return sendPage(reply, 200, deviceDecidedPage(view, outcome.decision === 'approved', client.clientName ?? client.clientId));
    }
    case 'denied':
      return sendErrorPage(endpoint, request, reply, outcome.error.statusCode, {
        kind: 'device_sign_in',
        error: outcome.error.error,
        description: outcome.error.description,
      });
  }
}
