import type { FastifyInstance } from 'fastify';
import { continueUpstream, upstreamCallback } from '../../authorize/upstream-steps.js';
import { UpstreamCallbackRefused } from '../../identity/sign-ins.js';
import { FormParams } from '../../oauth/form-params.js';
import { answer } from './answer.js';
import { cookieJar, postedForm } from './browser.js';
import type { AuthorizeRouteOptions } from './options.js';

/** A provider id as IDENTITY_PROVIDERS_FILE allows it. */
const PROVIDER_ID = /^[a-z0-9-]{1,64}$/;

/**
 * Sign-in through an upstream identity provider: the login page's "Continue with …"
 * buttons post here, and each provider's callback comes back to
 * `/oauth2/upstream/{id}/callback` (src/authorize/upstream-steps.ts does the work).
 */
export async function upstreamRoutes(app: FastifyInstance, endpoint: AuthorizeRouteOptions): Promise<void> {
  const { pipeline } = endpoint;

  app.post(endpoint.paths.upstream, async (request, reply) => {
    const form = FormParams.fromEntries(postedForm(request));
    return answer(endpoint, request, reply, await continueUpstream(form, cookieJar(request, reply), pipeline));
  });

  app.get<{ Params: { provider: string } }>(endpoint.paths.upstreamCallback, async (request, reply) => {
    const { provider } = request.params;
    if (!PROVIDER_ID.test(provider)) throw new UpstreamCallbackRefused(`no identity provider "${provider.slice(0, 64)}"`);
    const query = new URL(request.url, 'http://localhost').searchParams;
    return answer(endpoint, request, reply, await upstreamCallback(provider, query, cookieJar(request, reply), request.ip, pipeline));
  });
}
