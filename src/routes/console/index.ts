import cookie from '@fastify/cookie';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AdminProblem } from '../../admin/problems.js';
import type { ConsoleSessions } from '../../console/session.js';
import { type TokenEndpoint, TokenEndpointUnavailable } from '../../console/tokens.js';
import { OAuthError, StoreUnavailableError } from '../../errors/index.js';
import { type GrantAdministrationDependencies, revokeGrantById } from '../../grants/administration.js';
import { STORE_RETRY_AFTER_SECONDS } from '../../http/oauth-reply.js';
import { COPY_SCRIPT, COPY_SCRIPT_PATH } from '../../pages/console/copy-script.js';
import { signedOutPage, signInFailedPage } from '../../pages/console/notices.js';
import { errorPage } from '../../pages/error.js';
import { sendPage } from '../../pages/html.js';
import type { ErrorKind } from '../../pages/messages/index.js';
import { refOf } from '../../tokens/opaque.js';
import { useBrowserFormBodies } from '../../http/form-body.js';
import { cookieJar } from '../authorize/browser.js';
import { type AccountRouteOptions, accountRoutes } from './account.js';
import type { ConsoleRoute } from './declare.js';
import { checkChange, type ConsoleFrameDependencies, formFields, seeOther, serveConsoleRoute, viewOf } from './serve.js';
import { injectedTokenEndpoint } from './token-endpoint.js';

/**
 * The console at `/admin` (a backend-for-frontend: its tokens never reach the browser) and
 * the account page at `/account`: the sign-in's callback, sign-out, every declared page and
 * change (declare.ts, served by serve.ts), and the account's routes. Forms are
 * application/x-www-form-urlencoded; every error is a page.
 */

export interface ConsoleRouteOptions extends Omit<ConsoleFrameDependencies, 'sessions'> {
  /** The token endpoint's path: the console reaches it in process. */
  readonly tokenPath: string;
  /** The console's sessions, over the token endpoint `endpoint` reaches. */
  readonly sessionsWith: (endpoint: TokenEndpoint) => ConsoleSessions;
  /** The pages and changes (src/routes/console/pages.ts, and each entity's). */
  readonly routes: readonly ConsoleRoute[];
  /** To revoke the grant of an account sign-in's code, which is never redeemed. */
  readonly grants: GrantAdministrationDependencies;
  readonly account: AccountRouteOptions;
}

function errorAnswer(deps: ConsoleFrameDependencies, error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const page = (status: number, kind: ErrorKind, code: string, description?: string) =>
    sendPage(reply, status, errorPage(viewOf(deps, request), { kind, error: code, description, reference: request.id }));
  if (error instanceof StoreUnavailableError || error instanceof TokenEndpointUnavailable) {
    request.log.error({ err: { type: error.name, message: error.message } }, 'console: store or token endpoint unavailable');
    reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
    return page(503, 'temporarily_unavailable', 'temporarily_unavailable');
  }
  if (error instanceof OAuthError && error.statusCode < 500)
    return page(error.statusCode, error.statusCode === 403 ? 'form_refused' : 'invalid_request', error.error, error.description);
  if (error instanceof AdminProblem && error.status < 500) return page(error.status, 'invalid_request', error.code, error.detail);
  const status = (error as Partial<FastifyError>).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return page(400, 'invalid_request', 'invalid_request');
  request.log.error({ err: error }, 'unexpected error in the console');
  return page(500, 'server_error', 'server_error');
}

export async function consoleRoutes(app: FastifyInstance, options: ConsoleRouteOptions): Promise<void> {
  await app.register(cookie);
  useBrowserFormBodies(app);
  const sessions = options.sessionsWith(injectedTokenEndpoint(app, options.tokenPath));
  const deps: ConsoleFrameDependencies = { ...options, sessions };
  app.setErrorHandler((error, request, reply) => errorAnswer(deps, error, request, reply));
  const { base } = deps;

  // The authorization endpoint's answer to a sign-in (the console's, or the account page's).
  app.get(`${base}/callback`, async (request, reply) => {
    const jar = cookieJar(request, reply);
    const view = viewOf(deps, request);
    const finished = deps.signIn.finish(jar, new URL(request.url, 'http://localhost').searchParams);
    if (!finished.ok)
      return sendPage(reply, 400, signInFailedPage(view, finished.reason, finished.error, finished.transaction?.returnTo ?? base));
    const { code, transaction } = finished;
    if (transaction.purpose === 'account') {
      // The sign-in started the browser session, which is all the account page reads: the code's grant goes at once.
      const ref = refOf(code);
      if (ref) await revokeGrantById(ref.grantId, options.grants);
      return seeOther(reply, transaction.returnTo);
    }
    if (!(await sessions.start(jar, code, transaction)))
      return sendPage(reply, 400, signInFailedPage(view, 'redeem', undefined, transaction.returnTo));
    return seeOther(reply, transaction.returnTo);
  });

  // Sign-out: the console's grant revoked, its cookie and the server's browser session ended.
  app.post(`${base}/sign-out`, async (request, reply) => {
    const { csrf_token: token } = formFields(Array.isArray(request.body) ? (request.body as [string, string][]) : []);
    checkChange(request, reply, deps, token);
    const jar = cookieJar(request, reply);
    await sessions.end(jar);
    deps.browser.end(jar);
    return sendPage(reply, 200, signedOutPage(viewOf(deps, request), base));
  });

  // The copy button of the page that shows a secret once (an enhancement: the page works without it).
  app.get(`${base}${COPY_SCRIPT_PATH}`, async (_request, reply) =>
    reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .send(COPY_SCRIPT),
  );

  for (const route of options.routes) serveConsoleRoute(app, route, deps);
  await accountRoutes(app, deps, options.account);
}
