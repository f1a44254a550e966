import { z } from 'zod';
import { ADMIN_READ, ADMIN_WRITE, type AdminScope } from '../oauth/admin-scopes.js';
import type { AdminActor, AdminChange } from './audit.js';
import type { IfMatch } from './etags.js';
import type { ProblemName } from './problems.js';

/**
 * How a route of the admin API is declared: one object, read twice — by the frame that
 * serves it (src/routes/admin/frame.ts: token and scope, zod validation of path, query and
 * body, If-Match, the answer, problem details) and by the OpenAPI document
 * (src/admin/openapi.ts), so the document is generated from the schemas that validate the
 * requests. An entity plugin is a list of these. No Fastify here.
 */

export type AdminMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The media types a body may come in: JSON, or a JSON Merge Patch (RFC 7396) for PATCH. */
export type BodyMediaType = 'application/json' | 'application/merge-patch+json';

export interface AdminResponseSpec {
  readonly description: string;
  /** The JSON answer (application/json); none: no content. */
  readonly schema?: z.ZodType;
  /** The headers the answer carries. */
  readonly headers?: readonly ('ETag' | 'Location')[];
}

/** What a handler gets: everything validated, and who asks. */
export interface AdminRequest<P, Q, B> {
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  readonly actor: AdminActor;
  /** The request's If-Match (src/admin/etags.ts), undefined without one. */
  readonly ifMatch: IfMatch | undefined;
  /** Records one `admin.changed` event by this caller (names of fields only). */
  audit(change: Omit<AdminChange, 'actor'>): void;
}

/** What a handler answers; errors are thrown as AdminProblem. */
export interface AdminAnswer {
  readonly status: number;
  /** Sent as JSON; none: no content. */
  readonly body?: unknown;
  readonly etag?: string;
  readonly location?: string;
}

type Output<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface AdminRouteSpec<P extends z.ZodObject | undefined, Q extends z.ZodObject | undefined, B extends z.ZodType | undefined> {
  readonly method: AdminMethod;
  /** Below /admin/v1, with OpenAPI's path templates: `/clients/{client_id}`. */
  readonly path: string;
  /** Unique: `listClients`. */
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  /** The entity, grouping operations in the document: `clients`. */
  readonly tag: string;
  /** Default: admin:read for GET, admin:write for the others. */
  readonly scope?: AdminScope;
  /** One member per path template parameter, each a string schema. */
  readonly params?: P;
  /** The query parameters; any other is refused. */
  readonly query?: Q;
  readonly body?: B;
  /** Default: application/json. */
  readonly bodyMediaTypes?: readonly BodyMediaType[];
  /** The route honours If-Match: 412 is documented. */
  readonly conditional?: boolean;
  /** Problems the handler itself may answer (`not-found`, `conflict-file-entry`, …); the frame's own are added. */
  readonly problems?: readonly ProblemName[];
  /** Its successful answers, by status. */
  readonly responses: Readonly<Record<number, AdminResponseSpec>>;
  handle(request: AdminRequest<Output<P>, Output<Q>, Output<B>>): Promise<AdminAnswer>;
}

/** A declared route, as the frame and the document read it. */
export interface AdminRoute {
  readonly method: AdminMethod;
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description: string | undefined;
  readonly tag: string;
  readonly scope: AdminScope;
  readonly params: z.ZodObject | undefined;
  readonly query: z.ZodObject;
  readonly body: z.ZodType | undefined;
  readonly bodyMediaTypes: readonly BodyMediaType[];
  readonly conditional: boolean;
  readonly problems: readonly ProblemName[];
  readonly responses: Readonly<Record<number, AdminResponseSpec>>;
  handle(request: AdminRequest<unknown, unknown, unknown>): Promise<AdminAnswer>;
}

/** Declares a route (types flow from the schemas to the handler); unknown query parameters are refused. */
export function adminRoute<
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(spec: AdminRouteSpec<P, Q, B>): AdminRoute {
  return {
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tag: spec.tag,
    scope: spec.scope ?? (spec.method === 'GET' ? ADMIN_READ : ADMIN_WRITE),
    params: spec.params,
    query: (spec.query ?? z.object({})).strict(),
    body: spec.body,
    bodyMediaTypes: spec.bodyMediaTypes ?? ['application/json'],
    conditional: spec.conditional ?? false,
    problems: spec.problems ?? [],
    responses: spec.responses,
    handle: spec.handle as AdminRoute['handle'],
  };
}
