import type { FastifyInstance } from 'fastify';
import { StoreUnavailableError, TemporarilyUnavailable } from '../../errors.js';
import { sendErrorToClient } from '../../http/authorization-response.js';
import type { FailureCount } from '../../store/types.js';
import { authorizeUrl, showLogin, type AuthorizeContext } from './context.js';
import { readSubmittedForm } from './form.js';

const WRONG_CREDENTIALS = 'Incorrect username or password.';

function tooManyAttempts(count: FailureCount): string {
  const minutes = Math.max(1, Math.ceil(count.retryAfterSeconds / 60));
  return `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

/**
 * POST of the login form. Failures are counted per username and per client address in
 * the store, so the limit holds across instances; past it, attempts are refused without
 * checking the password. The message never says which of username or password was wrong.
 */
export async function loginRoute(app: FastifyInstance, ctx: AuthorizeContext): Promise<void> {
  const { maxPerUser, maxPerIp, windowSeconds } = ctx.loginThrottle;

  app.post(ctx.paths.login, async (request, reply) => {
    const form = readSubmittedForm(ctx, request, reply);
    if (!form) return reply;
    const { fields, authorization } = form;
    const username = fields.get('username') ?? '';
    const password = fields.get('password') ?? '';
    const userKey = `login:user:${username.toLowerCase()}`;
    const ipKey = `login:ip:${request.ip}`;

    try {
      const [perUser, perIp] = await Promise.all([ctx.failures.failures(userKey), ctx.failures.failures(ipKey)]);
      const blocking = perUser.count >= maxPerUser ? perUser : perIp.count >= maxPerIp ? perIp : undefined;
      if (blocking) {
        reply.header('retry-after', String(blocking.retryAfterSeconds));
        return showLogin(ctx, request, reply, authorization, { statusCode: 429, message: tooManyAttempts(blocking), username });
      }

      const user = await ctx.users.authenticate(username, password);
      if (!user) {
        await Promise.all([ctx.failures.recordFailure(userKey, windowSeconds), ctx.failures.recordFailure(ipKey, windowSeconds)]);
        return showLogin(ctx, request, reply, authorization, { statusCode: 200, message: WRONG_CREDENTIALS, username });
      }
      await ctx.failures.clearFailures(userKey);
      ctx.session.start(reply, user.sub);
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      request.log.error({ err: { message: err.message } }, 'store unavailable during login');
      return sendErrorToClient(reply, authorization, new TemporarilyUnavailable(), { issuer: ctx.issuer, afterPost: true });
    }
    // RFC 9700 §4.11: after a POST, 303 so the browser does not re-send the credentials.
    return reply.code(303).header('location', authorizeUrl(ctx, authorization.parameters)).header('cache-control', 'no-store').send();
  });
}
