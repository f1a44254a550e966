import { z } from 'zod';
import type { AdminActor } from '../../admin/audit.js';
import { ADMIN_READ, ADMIN_WRITE, type AdminScope } from '../../oauth/admin-scopes.js';
import type { Html } from '../../pages/html.js';
import type { ConsoleNavId, ConsoleNoticeId, Messages } from '../../pages/messages/index.js';
import type { PageView } from '../../pages/view.js';

/**
 * How a page of the console is declared: one object per page (GET) and per change (POST),
 * served by the frame (serve.ts), which does everything around it — the session and who
 * acts (the admin API's check of the token, with the scope declared), the 403 page, the
 * sign-in, CSRF and Origin for a change, the query or form validated by its zod schema, the
 * navigation, problems of the admin services as pages. A page returns its title and body
 * (src/pages/console/ renders them); a change calls the admin services with `actor`, the
 * signed-in person, and leads back to a page (303) or answers with one.
 */

/** What a page and a change get: who acts, the page's language, the CSRF token its forms carry, the console's path. */
export interface ConsoleContext {
  /** The signed-in person (`{ sub }`): what admin services and audit events name. */
  readonly actor: AdminActor;
  readonly sub: string;
  readonly view: PageView;
  readonly t: Messages;
  readonly csrfToken: string;
  /** The console's path (`/admin` below the issuer's): links and form actions start with it. */
  readonly base: string;
}

/** A page's content, in the frame: its title (the heading too) and body; 200 unless said. */
export interface ConsoleContent {
  readonly title: string;
  readonly body: Html;
  readonly status?: number;
  /** Script files below the console's path the page runs (an enhancement only: `/copy.js`). */
  readonly scripts?: readonly string[];
}

/** What a change does next: back to a page below the console (303, with a notice), or a page of its own (a form with its errors). */
export type ConsoleActionResult = { readonly redirect: string; readonly notice?: ConsoleNoticeId } | ConsoleContent;

export interface ConsolePageSpec<Q extends z.ZodType> {
  /** Below the console's path: `''` (the overview), `/grants`. */
  readonly path: string;
  /** The entry of the navigation (src/pages/console/nav.ts) marked as the current page. */
  readonly nav?: ConsoleNavId;
  /** Default admin:read. */
  readonly scope?: AdminScope;
  /** The query; default none (anything sent is ignored). */
  readonly query?: Q;
  render(request: ConsoleContext & { readonly query: z.output<Q> }): Promise<ConsoleContent>;
}

export interface ConsoleActionSpec<F extends z.ZodType> {
  /** Below the console's path, POST: `/grants/revoke`. */
  readonly path: string;
  /** Default admin:write. */
  readonly scope?: AdminScope;
  /** The form's fields besides `csrf_token`: one value a string, a repeated field an array (see `formList`). */
  readonly form: F;
  /** Where a browser whose session ended goes back to once signed in again (a page below the console). */
  readonly returnTo?: string;
  handle(request: ConsoleContext & { readonly form: z.output<F> }): Promise<ConsoleActionResult>;
}

/** A declared route, as the frame serves it. */
export type ConsoleRoute =
  | {
      readonly method: 'GET';
      readonly path: string;
      readonly nav: ConsoleNavId | undefined;
      readonly scope: AdminScope;
      readonly query: z.ZodType;
      render(request: ConsoleContext & { readonly query: unknown }): Promise<ConsoleContent>;
    }
  | {
      readonly method: 'POST';
      readonly path: string;
      readonly scope: AdminScope;
      readonly form: z.ZodType;
      readonly returnTo: string;
      handle(request: ConsoleContext & { readonly form: unknown }): Promise<ConsoleActionResult>;
    };

export function consolePage<Q extends z.ZodType = z.ZodObject>(spec: ConsolePageSpec<Q>): ConsoleRoute {
  return {
    method: 'GET',
    path: spec.path,
    nav: spec.nav,
    scope: spec.scope ?? ADMIN_READ,
    query: spec.query ?? z.object({}),
    render: spec.render as (request: ConsoleContext & { readonly query: unknown }) => Promise<ConsoleContent>,
  };
}

export function consoleAction<F extends z.ZodType>(spec: ConsoleActionSpec<F>): ConsoleRoute {
  return {
    method: 'POST',
    path: spec.path,
    scope: spec.scope ?? ADMIN_WRITE,
    form: spec.form,
    returnTo: spec.returnTo ?? '',
    handle: spec.handle as (request: ConsoleContext & { readonly form: unknown }) => Promise<ConsoleActionResult>,
  };
}

/** A field that may be repeated (checkboxes, a list of URIs): always an array, empty when absent. */
export const formList = z.preprocess((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]), z.array(z.string()));

/** A text field: trimmed, and absent when left empty. */
export const formText = z.preprocess(
  (value) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined),
  z.string().optional(),
);
