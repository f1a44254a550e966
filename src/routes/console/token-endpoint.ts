import type { FastifyInstance } from 'fastify';
import type { TokenEndpoint } from '../../console/tokens.js';
import { FORM_CONTENT_TYPE } from '../../http/form-body.js';

/**
 * Our own token endpoint as the console reaches it: the same route every client reaches
 * (client authentication, the grant, its events and metrics), called in process with
 * Fastify's inject, so no request leaves the process and no instance depends on reaching
 * another through the network.
 */
export function injectedTokenEndpoint(app: FastifyInstance, path: string): TokenEndpoint {
  return {
    async post(form, authorization) {
      const response = await app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': FORM_CONTENT_TYPE, authorization },
        payload: new URLSearchParams(form as Record<string, string>).toString(),
      });
      let body: unknown;
      try {
        body = response.json();
      } catch {
        body = undefined;
      }
      return { status: response.statusCode, body };
    },
  };
}
