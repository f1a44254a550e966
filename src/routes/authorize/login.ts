import type { FastifyInstance } from 'fastify';
import { StoreUnavailableError, TemporarilyUnavailable } from '../../errors.js';
import { sendErrorToClient } from '../../http/authorization-response.js';
import { authorizeUrl, showLogin, type AuthorizeContext } from './context.js';
import { readSubmittedForm } from './form.js';

const WRONG_CREDENTIALS = 'Incorrect username or password.';
const BUSY = 'Too many sign-ins are in progress right now. Please try again in a moment.';

function tooManyAttempts(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

/**
 * POST of the login form, through the sign-in limits shared with the password grant:
 * past a limit, or with every verification slot taken, the password is not checked and
 * the form comes back (429 or 503, with Retry-After). The message never says which of
 * username or password was wrong.
 */
export async function loginRoute(app: FastifyInstance, ctx: AuthorizeContext): Promise<void> {
  app.post(ctx.paths.login, async (request, reply) => {
    const form = readSubmittedForm(ctx, request, reply);
    if (!form) return reply;
    const { fields, authorization } = form;
    const username = fields.get('username') ?? '';
    const password = fields.get('password') ?? '';

    let signIn;
    try {
      signIn = await ctx.signIn.attempt(username, password, request.ip);
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      request.log.error({ err: { message: err.message } }, 'store unavailable during login');
      return sendErrorToClient(reply, authorization, new TemporarilyUnavailable(), { issuer: ctx.issuer, afterPost: true });
    }
    switch (signIn.outcome) {
      case 'throttled':
        reply.header('retry-after', String(signIn.retryAfterSeconds));
        return showLogin(ctx, request, reply, authorization, { statusCode: 429, message: tooManyAttempts(signIn.retryAfterSeconds), username });
      case 'busy':
        reply.header('retry-after', String(signIn.retryAfterSeconds));
        return showLogin(ctx, request, reply, authorization, { statusCode: 503, message: BUSY, username });
      case 'wrong_credentials':
        return showLogin(ctx, request, reply, authorization, { statusCode: 200, message: WRONG_CREDENTIALS, username });
      case 'signed_in':
        ctx.session.start(reply, signIn.user.sub);
        // RFC 9700 §4.11: after a POST, 303 so the browser does not re-send the credentials.
        return reply.code(303).header('location', authorizeUrl(ctx, authorization.parameters)).header('cache-control', 'no-store').send();
    }
  });
}
