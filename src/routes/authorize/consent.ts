import type { FastifyInstance } from 'fastify';
import { approvedResponseParameters } from '../../authorize/respond.js';
import { AccessDenied, InvalidRequest, TemporarilyUnavailable } from '../../errors.js';
import { sendErrorToClient, sendToClient } from '../../http/authorization-response.js';
import { authorizeUrl, type AuthorizeContext } from './context.js';
import { readSubmittedForm } from './form.js';

/** POST of the consent form: Deny sends access_denied to the client, Allow issues the response. */
export async function consentRoute(app: FastifyInstance, ctx: AuthorizeContext): Promise<void> {
  app.post(ctx.paths.consent, async (request, reply) => {
    const form = readSubmittedForm(ctx, request, reply);
    if (!form) return reply;
    const { fields, authorization } = form;
    const user = ctx.session.current(request);
    if (!user) {
      // The session ended while the page was open: sign in again, then consent again.
      return reply.code(303).header('location', authorizeUrl(ctx, authorization.parameters)).header('cache-control', 'no-store').send();
    }
    const options = { issuer: ctx.issuer, afterPost: true };
    const decision = fields.get('decision');
    if (decision === 'deny') {
      return sendErrorToClient(reply, authorization, new AccessDenied('the user denied the request'), options);
    }
    if (decision !== 'allow') throw new InvalidRequest('the consent form was incomplete: choose Allow or Deny');
    try {
      return sendToClient(reply, authorization, await approvedResponseParameters(authorization, user, ctx), options);
    } catch (err) {
      if (err instanceof TemporarilyUnavailable) return sendErrorToClient(reply, authorization, err, options);
      throw err;
    }
  });
}
