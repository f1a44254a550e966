import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { basic, FORM_HEADERS, form } from './server.js';

/** Back-channel calls of one client: HTTP Basic when it has a secret, client_id in the body when public. */
export class TokenClient {
  constructor(
    private readonly app: FastifyInstance,
    readonly clientId: string,
    private readonly secret: string | null,
    private readonly remoteAddress = '203.0.113.10',
  ) {}

  /** `resources`: one `resource` parameter each (RFC 8707 lets it repeat). */
  post(path: string, params: Record<string, string>, resources: readonly string[] = []): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams(form(this.secret === null ? { ...params, client_id: this.clientId } : params));
    for (const resource of resources) body.append('resource', resource);
    return this.app.inject({
      method: 'POST',
      url: path,
      headers: { ...FORM_HEADERS, ...(this.secret === null ? {} : { authorization: basic(this.clientId, this.secret) }) },
      payload: body.toString(),
      remoteAddress: this.remoteAddress,
    });
  }

  token(params: Record<string, string>, resources: readonly string[] = []): Promise<LightMyRequestResponse> {
    return this.post('/oauth2/token', params, resources);
  }

  refresh(refreshToken: string, extra: Record<string, string> = {}, resources: readonly string[] = []): Promise<LightMyRequestResponse> {
    return this.token({ grant_type: 'refresh_token', refresh_token: refreshToken, ...extra }, resources);
  }

  async introspect(token: string): Promise<Record<string, unknown>> {
    return (await this.post('/oauth2/introspect', { token })).json();
  }

  revoke(token: string, hint?: string): Promise<LightMyRequestResponse> {
    return this.post('/oauth2/revoke', { token, ...(hint ? { token_type_hint: hint } : {}) });
  }
}
