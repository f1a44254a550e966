import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { AdminActor } from '../../admin/audit.js';
import { AdminProblem, validationProblem } from '../../admin/problems.js';
import { fromOurOrigin } from '../../console/forms.js';
import type { ConsoleSessions } from '../../console/session.js';
import type { ConsoleSignIn } from '../../console/sign-in.js';
import { FormRefused } from '../../errors/index.js';
import type { AdminScope } from '../../oauth/admin-scopes.js';
import type { Parameters } from '../../oauth/form-params.js';
import { consolePage as framed, type ConsoleFrame } from '../../pages/console/frame.js';
import { forbiddenPage, problemPage } from '../../pages/console/notices.js';
import { sendPage } from '../../pages/html.js';
import type { ConsoleNavId, ConsoleNoticeId } from '../../pages/messages/index.js';
import type { Pages, PageView } from '../../pages/view.js';
import type { BrowserSession } from '../../session/browser-session.js';
import { cookieJar } from '../authorize/browser.js';
import type { ConsoleActionResult, ConsoleContext, ConsoleRoute } from './declare.js';

/**
 * Serves the declared pages and changes of the console (declare.ts). A page: the session's
 * person must act with the page's scope (else sign-in, or the 403 page), then its query is
 * validated and it renders in the frame. A change: first where it comes from (Origin,
 * Sec-Fetch-Site) and its CSRF token, before anything else is read or refreshed; then who
 * acts, its form, and what it does. Every answer is `no-store` (sendPage).
 */

export interface ConsoleFrameDependencies {
  /** The console's path; its routes are below it. */
  readonly base: string;
  readonly accountPath: string;
  /** The issuer's origin: the only one a change may come from. */
  readonly origin: string;
  readonly pages: Pages;
  /** The server's browser session: the CSRF token of the signed forms, and sign-out. */
  readonly browser: BrowserSession;
  readonly sessions: ConsoleSessions;
  readonly signIn: ConsoleSignIn;
  /** How the pages name a person (a federated user by their provider's email, name…). */
  readonly displayNameOf: (sub: string) => Promise<string>;
}

/** The longest page address a sign-in returns to. */
const MAX_RETURN_LENGTH = 1024;

type Admitted = { readonly actor: AdminActor; readonly sub: string } | { readonly answered: FastifyReply };

export function viewOf(deps: Pick<ConsoleFrameDependencies, 'pages'>, request: FastifyRequest): PageView {
  return deps.pages.viewFor(request.headers['accept-language']);
}

/** 303 to `location` (after a POST, or to the authorization endpoint), never cached, never with a Referer. */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('location', location).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').send();
}

/** The person acting with `scope`; else the answer already sent (to the sign-in, or the 403 page). */
async function admitted(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: ConsoleFrameDependencies,
  scope: AdminScope,
  returnTo: string,
): Promise<Admitted> {
  const jar = cookieJar(request, reply);
  const access = await deps.sessions.access(jar, scope);
  if (access.kind === 'admin') return access;
  if (access.kind === 'signed-out') return { answered: seeOther(reply, deps.signIn.begin(jar, 'console', returnTo)) };
  const who = await deps.displayNameOf(access.sub);
  const paths = { signOut: `${deps.base}/sign-out`, account: deps.accountPath };
  return { answered: sendPage(reply, 403, forbiddenPage(viewOf(deps, request), who, paths, deps.browser.csrfToken(jar))) };
}

/** A form's fields: a repeated one as an array (the schema decides whether it may be). */
export function formFields(entries: Parameters): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  for (const [name, value] of entries) {
    const known = fields[name];
    fields[name] = known === undefined ? value : [...(Array.isArray(known) ? known : [known]), value];
  }
  return fields;
}

/** Refuses a change that does not come from our own page with its CSRF token (FormRefused: 403, nothing changed). */
export function checkChange(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: Pick<ConsoleFrameDependencies, 'origin' | 'browser'>,
  token: unknown,
): void {
  const headers = { origin: request.headers.origin, 'sec-fetch-site': request.headers['sec-fetch-site'] as string | undefined };
  if (!fromOurOrigin(headers, deps.origin)) throw new FormRefused('this form was sent from another site');
  if (typeof token !== 'string' || !deps.browser.csrfTokenValid(cookieJar(request, reply), token))
    throw new FormRefused('this form was not sent from a page of this server, or your session changed: open the page again');
}

function parsed(schema: z.ZodType, value: unknown): unknown {
  const result = schema.safeParse(value);
  if (!result.success) throw validationProblem(result.error.issues, 'the request has invalid fields');
  return result.data;
}

function noticeOf(request: FastifyRequest, context: ConsoleContext): string | undefined {
  const notice = (request.query as { notice?: unknown } | undefined)?.notice;
  const notices = context.t.console.notices;
  return typeof notice === 'string' && Object.hasOwn(notices, notice) ? notices[notice as ConsoleNoticeId] : undefined;
}

/** What a page or a change produced, sent: a page in the frame, a redirect below the console, or the problem an admin service threw. */
async function answer(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: ConsoleFrameDependencies,
  context: ConsoleContext,
  place: { readonly nav: ConsoleNavId | undefined; readonly back: string },
  produce: () => Promise<ConsoleActionResult>,
): Promise<FastifyReply> {
  const frame = async (): Promise<ConsoleFrame> => ({
    base: deps.base,
    current: place.nav,
    who: await deps.displayNameOf(context.sub),
    csrfToken: context.csrfToken,
    accountPath: deps.accountPath,
    notice: noticeOf(request, context),
  });
  let result: ConsoleActionResult;
  try {
    result = await produce();
  } catch (err) {
    if (!(err instanceof AdminProblem)) throw err;
    return sendPage(reply, err.status, problemPage(context.view, { ...(await frame()), notice: undefined }, err, place.back));
  }
  if ('redirect' in result) {
    const notice = result.notice === undefined ? '' : `${result.redirect.includes('?') ? '&' : '?'}notice=${result.notice}`;
    return seeOther(reply, `${deps.base}${result.redirect}${notice}`);
  }
  const scriptFiles = (result.scripts ?? []).map((path) => ({ src: `${deps.base}${path}`, url: `${deps.origin}${deps.base}${path}` }));
  return sendPage(reply, result.status ?? 200, framed(context.view, await frame(), result.title, result.body, { scriptFiles }));
}

export function serveConsoleRoute(app: FastifyInstance, route: ConsoleRoute, deps: ConsoleFrameDependencies): void {
  const url = `${deps.base}${route.path}`;
  const contextOf = (request: FastifyRequest, reply: FastifyReply, who: { actor: AdminActor; sub: string }): ConsoleContext => {
    const view = viewOf(deps, request);
    return { ...who, view, t: view.t, csrfToken: deps.browser.csrfToken(cookieJar(request, reply)), base: deps.base };
  };
  if (route.method === 'GET') {
    app.get(url, async (request, reply) => {
      // Back here once signed in; a very long URL (it travels in a cookie) comes back to the console's first page.
      const back = request.url.length <= MAX_RETURN_LENGTH ? request.url : deps.base;
      const who = await admitted(request, reply, deps, route.scope, back);
      if ('answered' in who) return who.answered;
      const { notice: _notice, ...query } = (request.query ?? {}) as Record<string, unknown>;
      const context = contextOf(request, reply, who);
      const place = { nav: route.nav, back: deps.base };
      return answer(request, reply, deps, context, place, async () => route.render({ ...context, query: parsed(route.query, query) }));
    });
    return;
  }
  app.post(url, async (request, reply) => {
    const { csrf_token: token, ...fields } = formFields(Array.isArray(request.body) ? (request.body as Parameters) : []);
    checkChange(request, reply, deps, token);
    const back = `${deps.base}${route.returnTo}`;
    const who = await admitted(request, reply, deps, route.scope, back);
    if ('answered' in who) return who.answered;
    const context = contextOf(request, reply, who);
    return answer(request, reply, deps, context, { nav: undefined, back }, async () =>
      route.handle({ ...context, form: parsed(route.form, fields) }),
    );
  });
}
