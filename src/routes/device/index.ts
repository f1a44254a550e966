import type { FastifyInstance } from 'fastify';
import { deviceCodePage, enterUserCode } from '../../authorize/device-code-entry.js';
import { FormParams, queryParametersOf } from '../../oauth/form-params.js';
import { SIGN_IN_MARK_PARAMETER } from '../../session/sign-in-mark.js';
import { answer } from '../authorize/answer.js';
import { cookieJar, postedForm } from '../authorize/browser.js';
import type { AuthorizeRouteOptions } from '../authorize/options.js';

/**
 * /device, the verification URI of the device authorization grant (RFC 8628 §3.3): GET shows
 * the form (the code filled in from verification_uri_complete, or straight on after a sign-in
 * made for it), POST takes the code typed. Registered in the authorization endpoint's scope:
 * the same cookies, form parsing, error pages and sign-in and consent pages
 * (src/authorize/device-code-entry.ts does the work).
 */
export async function deviceRoutes(app: FastifyInstance, endpoint: AuthorizeRouteOptions): Promise<void> {
  const { pipeline } = endpoint;

  app.get(endpoint.paths.device, async (request, reply) => {
    const query = queryParametersOf(request.url);
    const value = (name: string) => query.find(([parameter]) => parameter === name)?.[1];
    const page = await deviceCodePage(
      { userCode: value('user_code'), mark: value(SIGN_IN_MARK_PARAMETER) },
      cookieJar(request, reply),
      pipeline,
    );
    return answer(endpoint, request, reply, page);
  });

  app.post(endpoint.paths.device, async (request, reply) => {
    const form = FormParams.fromEntries(postedForm(request));
    return answer(endpoint, request, reply, await enterUserCode(form, cookieJar(request, reply), request.ip, pipeline));
  });
}
