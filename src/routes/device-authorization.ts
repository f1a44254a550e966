import type { FastifyInstance } from 'fastify';
import { DEVICE_CODE_GRANT } from '../clients/registry.js';
import type { DeviceAuthorizations } from '../device/device-authorizations.js';
import { UnauthorizedClient } from '../errors/index.js';
import { targetRequest } from '../grants/types.js';
import { authenticatedClient, type ClientAuthentication } from '../http/client-auth.js';
import { formRequest, useOAuthFormBodies } from '../http/form-body.js';
import { sendOAuthJson } from '../http/oauth-reply.js';

export interface DeviceAuthorizationRouteOptions {
  readonly path: string;
  readonly realm: string;
  /** RFC 8628 §3.2 verification_uri: the user's page (/device). */
  readonly verificationUri: string;
  /** Every client (the file's, registered ones, metadata documents) and how each proves who it is. */
  readonly authentication: ClientAuthentication;
  readonly devices: Pick<DeviceAuthorizations, 'start'>;
}

/**
 * POST /oauth2/device_authorization (RFC 8628 §3.1): "The client authentication requirements
 * of Section 3.2.1 of [RFC6749] apply to requests on this endpoint": the token endpoint's,
 * a public client with its client_id. A store that cannot record the codes answers 503
 * temporarily_unavailable with Retry-After: nothing was started.
 */
export async function deviceAuthorizationRoute(app: FastifyInstance, options: DeviceAuthorizationRouteOptions): Promise<void> {
  useOAuthFormBodies(app, { realm: options.realm, storeOutage: 'temporarily_unavailable' });

  app.post(options.path, async (request, reply) => {
    const { body, query } = formRequest(request.body, request.url);
    const client = await authenticatedClient(request, { body, query }, options.authentication);
    // A client without the grant could never redeem the device code: refused before anything is stored.
    if (!client.grantTypes.has(DEVICE_CODE_GRANT)) {
      throw new UnauthorizedClient(`this client is not registered for grant_type ${DEVICE_CODE_GRANT}`);
    }
    const started = await options.devices.start(client, targetRequest(body));
    const complete = new URL(options.verificationUri);
    complete.searchParams.set('user_code', started.userCode);
    // §3.2: the device authorization response, "with a 200 (OK) status code".
    return sendOAuthJson(reply, 200, {
      device_code: started.deviceCode,
      user_code: started.userCode,
      verification_uri: options.verificationUri,
      verification_uri_complete: complete.href,
      expires_in: started.expiresIn,
      interval: started.interval,
    });
  });
}
