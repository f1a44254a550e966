import type { FastifyInstance } from 'fastify';
import { signInMark } from '../../session/sign-in-mark.js';
import type { Messages } from '../../pages/messages/index.js';
import { cookieJar } from './cookies.js';
import { readSubmittedForm, returnToAuthorize, sendingStoreFailuresToClient, showLogin } from './interaction.js';
import type { AuthorizeRouteOptions } from './options.js';

function tooManyAttempts(retryAfterSeconds: number): (t: Messages) => string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return (t) => t.tooManyAttempts(minutes);
}

/**
 * POST of the login form, through the sign-in limits shared with the password grant:
 * past a limit or while other attempts still being checked hold it (429), or with every
 * verification slot taken (503), the password is not checked and the form comes back with
 * Retry-After. The message never says which of username or password was wrong.
 */
export async function loginRoute(app: FastifyInstance, endpoint: AuthorizeRouteOptions): Promise<void> {
  app.post(endpoint.paths.login, async (request, reply) => {
    const { fields, authorization } = await readSubmittedForm(endpoint, request, reply);
    const username = fields.get('username') ?? '';
    const password = fields.get('password') ?? '';

    const signIn = await sendingStoreFailuresToClient(authorization, () =>
      endpoint.signIn.attempt(username, password, request.ip, 'login_page'),
    );
    switch (signIn.outcome) {
      case 'throttled':
        reply.header('retry-after', String(signIn.retryAfterSeconds));
        return showLogin(endpoint, request, reply, authorization, {
          statusCode: 429,
          message: tooManyAttempts(signIn.retryAfterSeconds),
          username,
        });
      case 'checks_in_flight':
        reply.header('retry-after', String(signIn.retryAfterSeconds));
        return showLogin(endpoint, request, reply, authorization, { statusCode: 429, message: (t) => t.signInChecksInFlight, username });
      case 'busy':
        reply.header('retry-after', String(signIn.retryAfterSeconds));
        return showLogin(endpoint, request, reply, authorization, { statusCode: 503, message: (t) => t.signInBusy, username });
      case 'wrong_credentials':
        return showLogin(endpoint, request, reply, authorization, { statusCode: 200, message: (t) => t.wrongCredentials, username });
      case 'signed_in': {
        const user = endpoint.session.start(cookieJar(request, reply), signIn.user.sub);
        // RFC 9700 §4.11: after a POST, 303 so the browser does not re-send the credentials.
        return returnToAuthorize(endpoint, reply, authorization, signInMark(endpoint.signer, user, authorization.parameters));
      }
    }
  });
}
