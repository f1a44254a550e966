import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { MERGE_PATCH_MEDIA_TYPE } from '../../src/admin/merge-patch.js';
import { bearer } from './admin.js';

/** Calls of the admin API with one token: JSON bodies, merge patches, If-Match. */
export interface AdminCalls {
  get(path: string): Promise<LightMyRequestResponse>;
  post(path: string, body?: unknown, ifMatch?: string): Promise<LightMyRequestResponse>;
  put(path: string, body: unknown, ifMatch?: string): Promise<LightMyRequestResponse>;
  patch(path: string, body: unknown, ifMatch?: string): Promise<LightMyRequestResponse>;
  delete(path: string, ifMatch?: string): Promise<LightMyRequestResponse>;
}

export function adminCalls(app: FastifyInstance, token: string): AdminCalls {
  const send = (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body: unknown,
    ifMatch?: string,
    type = 'application/json',
  ) =>
    app.inject({
      method,
      url: `/admin/v1${path}`,
      headers: {
        ...bearer(token),
        ...(body === undefined ? {} : { 'content-type': type }),
        ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  return {
    get: (path) => send('GET', path, undefined),
    post: (path, body, ifMatch) => send('POST', path, body, ifMatch),
    put: (path, body, ifMatch) => send('PUT', path, body, ifMatch),
    patch: (path, body, ifMatch) => send('PATCH', path, body, ifMatch, MERGE_PATCH_MEDIA_TYPE),
    delete: (path, ifMatch) => send('DELETE', path, undefined, ifMatch),
  };
}

/** The admin.changed audit lines of a captured log: who, what, which fields. */
export function adminChanges(lines: readonly string[]): Record<string, unknown>[] {
  return lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.audit === true && line.event === 'admin.changed')
    .map(({ actor, entity, id, action, fields }) => ({ actor, entity, id, action, fields }));
}

/** The 400 validation problem with this detail and these fields (for expectProblem). */
export function validationFailure(detail: string, errors: { field: string; problem: string }[]) {
  return { status: 400, type: 'validation', title: 'The request is not valid', detail, errors };
}
