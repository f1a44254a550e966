import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthorizationRequest } from '../../authorize/request.js';
import { InvalidRequest } from '../../errors.js';
import { FormParams } from '../../http/form.js';
import { errorPage } from '../../pages/authorization.js';
import { sendPage } from '../../pages/html.js';
import { readInteraction, sendUnlessValid, validate, type AuthorizeContext } from './context.js';

export interface SubmittedForm {
  readonly fields: FormParams;
  readonly authorization: AuthorizationRequest;
}

/**
 * Reads a login or consent form: refuses it (403) without a valid CSRF token, then
 * re-validates the authorization request it carries, answering the client directly if
 * that request is no longer valid. Undefined means a response was already sent.
 */
export function readSubmittedForm(ctx: AuthorizeContext, request: FastifyRequest, reply: FastifyReply): SubmittedForm | undefined {
  if (!Array.isArray(request.body)) throw new InvalidRequest('forms must be sent as application/x-www-form-urlencoded');
  const fields = FormParams.fromEntries(request.body as [string, string][]);
  if (!ctx.session.csrfTokenValid(request, fields.get('csrf_token'))) {
    sendPage(reply, 403, errorPage('Form refused', 'this form was not sent from this site, or your session changed: go back to the application and start again'));
    return undefined;
  }
  const authorization = sendUnlessValid(ctx, reply, validate(ctx, readInteraction(ctx, fields.get('interaction'))), true);
  return authorization ? { fields, authorization } : undefined;
}
