/**
 * How the example MCP server calls another API for the user (RFC 8693 token exchange): the
 * MCP specification forbids passing the token the client sent on ("token passthrough"), so
 * the server trades it at the authorization server for a token issued for the downstream
 * API, which names it as the actor (`act`). Its own client (TOKEN_EXCHANGE_CLIENT_ID and
 * _SECRET) is registered with a `token_exchange` policy naming this MCP server's tokens as
 * the subject audience and DOWNSTREAM_RESOURCE as a target.
 */

export interface Downstream {
  /** Calls the downstream API for the user whose token `userToken` is; its JSON answer. */
  call(userToken: string): Promise<unknown>;
}

export interface DownstreamSettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The downstream API's resource identifier (the new token's audience). */
  readonly resource: string;
  /** What to call there with the new token. */
  readonly url: string;
}

export function downstream(settings: DownstreamSettings): Downstream {
  const basic = Buffer.from(`${encodeURIComponent(settings.clientId)}:${encodeURIComponent(settings.clientSecret)}`).toString('base64');
  return {
    async call(userToken) {
      const exchanged = await fetch(`${settings.issuer}/oauth2/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}` },
        body: new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
          subject_token: userToken,
          subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          resource: settings.resource,
        }),
      });
      const body = (await exchanged.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!exchanged.ok || body.access_token === undefined)
        throw new Error(`token exchange refused: ${body.error ?? exchanged.status} ${body.error_description ?? ''}`.trim());
      const answer = await fetch(settings.url, { headers: { authorization: `Bearer ${body.access_token}` } });
      if (!answer.ok) throw new Error(`the downstream API answered ${answer.status}`);
      return answer.json();
    },
  };
}

/** The downstream settings from the environment, when DOWNSTREAM_URL is set. */
export function downstreamFromEnvironment(env: NodeJS.ProcessEnv, issuer: string): Downstream | undefined {
  const { DOWNSTREAM_URL, DOWNSTREAM_RESOURCE, TOKEN_EXCHANGE_CLIENT_ID, TOKEN_EXCHANGE_CLIENT_SECRET } = env;
  if (!DOWNSTREAM_URL) return undefined;
  if (!DOWNSTREAM_RESOURCE || !TOKEN_EXCHANGE_CLIENT_ID || !TOKEN_EXCHANGE_CLIENT_SECRET)
    throw new Error('DOWNSTREAM_URL needs DOWNSTREAM_RESOURCE, TOKEN_EXCHANGE_CLIENT_ID and TOKEN_EXCHANGE_CLIENT_SECRET');
  return downstream({
    issuer,
    clientId: TOKEN_EXCHANGE_CLIENT_ID,
    clientSecret: TOKEN_EXCHANGE_CLIENT_SECRET,
    resource: DOWNSTREAM_RESOURCE,
    url: DOWNSTREAM_URL,
  });
}
