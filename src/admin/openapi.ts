import { z } from 'zod';
import { ADMIN_READ, ADMIN_WRITE } from '../oauth/admin-scopes.js';
import { type ProblemName, PROBLEM_NAMES, PROBLEM_TYPE_PREFIX, problemStatus } from './problems.js';
import type { AdminRoute } from './routes.js';

/**
 * The OpenAPI 3.1 document of the admin API, generated from the declared routes: their
 * zod schemas become the JSON Schemas (2020-12, OpenAPI 3.1's dialect) of parameters,
 * bodies and answers, and each operation lists every answer the frame or the handler can
 * give. Never written by hand. Pure.
 */

export interface OpenApiSettings {
  /** The admin API's URL: `{ISSUER}/admin/v1`. */
  readonly serverUrl: string;
  readonly tokenUrl: string;
  readonly authorizationUrl: string;
  readonly version: string;
}

/** RFC 9457 §3.1, with `errors` for a validation problem and `scope` for insufficient-scope. */
export const ProblemSchema = z
  .object({
    type: z.string().describe(`${PROBLEM_TYPE_PREFIX}<name>`),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    errors: z.array(z.object({ field: z.string(), problem: z.string() }).strict()).optional(),
    scope: z.string().optional().describe('insufficient-scope: the scope the request needs'),
  })
  .strict();

type JsonSchema = Record<string, unknown>;

/**
 * Where the definitions of recursive schemas go (a workload rule's claims): zod writes them
 * in the schema's own `$defs`, which a `$ref` inside the OpenAPI document would resolve
 * against the document; they move to `components/schemas`, named after where they occur.
 */
type Definitions = Record<string, JsonSchema>;

function rewrittenRefs(value: unknown, names: Record<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewrittenRefs(item, names));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => {
      const local = key === '$ref' && typeof member === 'string' ? /^#\/\$defs\/(.+)$/.exec(member) : null;
      return [key, local ? `#/components/schemas/${names[local[1] as string]}` : rewrittenRefs(member, names)];
    }),
  );
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output', definitions?: Definitions, name = 'schema'): JsonSchema {
  const { $schema: _dialect, $defs, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  if (!$defs || !definitions) return rest;
  const names = Object.fromEntries(Object.keys($defs as JsonSchema).map((key) => [key, `${name}_${key.replace(/^_+/, '')}`]));
  for (const [key, definition] of Object.entries($defs as JsonSchema))
    definitions[names[key] as string] = rewrittenRefs(definition, names) as JsonSchema;
  return rewrittenRefs(rest, names) as JsonSchema;
}

function parameters(route: AdminRoute): JsonSchema[] {
  const of = (where: 'path' | 'query', shape: Record<string, z.ZodType>) =>
    Object.entries(shape).map(([name, field]) => ({
      name,
      in: where,
      required: where === 'path' || !field.safeParse(undefined).success,
      ...(field.description ? { description: field.description } : {}),
      schema: jsonSchema(field, 'input'),
    }));
  return [...(route.params ? of('path', route.params.shape) : []), ...of('query', route.query.shape)];
}

/** The problems an operation can answer: the frame's for every route, and its own. */
function problemsOf(route: AdminRoute, isPublic: boolean): ProblemName[] {
  const names = new Set<ProblemName>(['validation', 'store-unavailable', ...route.problems]);
  if (!isPublic) for (const name of ['unauthorized', 'insufficient-scope'] as const) names.add(name);
  if (route.params) names.add('not-found');
  if (route.conditional) names.add('precondition-failed');
  if (route.body) for (const name of ['invalid-json', 'payload-too-large', 'unsupported-media-type'] as const) names.add(name);
  return PROBLEM_NAMES.filter((name) => names.has(name));
}

const problemContent = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };

function responses(route: AdminRoute, isPublic: boolean, definitions: Definitions): JsonSchema {
  const answers: JsonSchema = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    const schema = spec.schema && jsonSchema(spec.schema, 'output', definitions, `${route.operationId}_${status}`);
    answers[status] = {
      description: spec.description,
      ...(spec.headers?.length ? { headers: Object.fromEntries(spec.headers.map((name) => [name, { schema: { type: 'string' } }])) } : {}),
      ...(schema ? { content: { 'application/json': { schema } } } : {}),
    };
  }
  const byStatus = new Map<number, ProblemName[]>();
  for (const name of problemsOf(route, isPublic)) byStatus.set(problemStatus(name), [...(byStatus.get(problemStatus(name)) ?? []), name]);
  for (const [status, names] of byStatus) {
    answers[String(status)] = {
      description: `Problem details: ${names.map((n) => `${PROBLEM_TYPE_PREFIX}${n}`).join(', ')}`,
      content: problemContent,
    };
  }
  return answers;
}

function operation(route: AdminRoute, definitions: Definitions, isPublic = false): JsonSchema {
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security: isPublic ? [] : [{ oauth2: [route.scope] }],
    parameters: [
      ...parameters(route),
      ...(route.conditional
        ? [
            {
              name: 'If-Match',
              in: 'header',
              required: false,
              description: 'The ETag last read: 412 when the entry changed since',
              schema: { type: 'string' },
            },
          ]
        : []),
    ],
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(
              route.bodyMediaTypes.map((type) => [
                type,
                { schema: jsonSchema(route.body as z.ZodType, 'input', definitions, `${route.operationId}_body`) },
              ]),
            ),
          },
        }
      : {}),
    responses: responses(route, isPublic, definitions),
  };
}

/** The document for `routes`; `publicRoutes` need no token (the document itself). */
export function openApiDocument(routes: readonly AdminRoute[], publicRoutes: readonly AdminRoute[], settings: OpenApiSettings): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const definitions: Definitions = {};
  const add = (route: AdminRoute, isPublic: boolean) => {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route, definitions, isPublic) };
  };
  for (const route of publicRoutes) add(route, true);
  for (const route of routes) add(route, false);
  const scopes = { [ADMIN_READ]: 'Read the configuration', [ADMIN_WRITE]: 'Change the configuration' };
  return {
    openapi: '3.1.0',
    info: {
      title: 'oauth2-token-service admin API',
      version: settings.version,
      description:
        'Send an access token issued for this API (resource: the server URL below) as Bearer or DPoP (RFC 9449). Errors are RFC 9457 problem details.',
    },
    servers: [{ url: settings.serverUrl }],
    paths,
    components: {
      schemas: { Problem: jsonSchema(ProblemSchema, 'output'), ...definitions },
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          flows: {
            clientCredentials: { tokenUrl: settings.tokenUrl, scopes },
            authorizationCode: { authorizationUrl: settings.authorizationUrl, tokenUrl: settings.tokenUrl, scopes },
          },
        },
      },
    },
  };
}
