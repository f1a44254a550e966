import { FetchFailed } from './errors.js';
import { type FetchPolicy, guardedRequest, readBody, settleOnce, targetOf, USER_AGENT } from './guard.js';

/**
 * A `fetch` for the URLs an upstream identity provider names (its discovery document, JWKS,
 * token and userinfo endpoints), handed to openid-client as its `customFetch`: the guards of
 * the SSRF-safe fetcher (scheme, special-use addresses checked in the connection's own DNS
 * lookup, one deadline, a size limit, a fresh connection) on any method and status, so the
 * library sees the provider's own error answers. Redirects are never followed: a 3xx comes
 * back as it is.
 */

type HeaderFields = ConstructorParameters<typeof Headers>[0];

export interface RequestInitLike {
  readonly method?: string;
  readonly headers?: HeaderFields | Record<string, string>;
  readonly body?: string | URLSearchParams | null;
}

function headerRecord(headers: RequestInitLike['headers']): Record<string, string> {
  const record: Record<string, string> = {};
  new Headers(headers as HeaderFields).forEach((value, name) => (record[name] = value));
  return record;
}

export function safeFetch(policy: FetchPolicy): (url: string, init?: RequestInitLike) => Promise<Response> {
  return (url, init = {}) => safeRequest(url, init, policy);
}

export function safeRequest(url: string, init: RequestInitLike, policy: FetchPolicy): Promise<Response> {
  let target: URL;
  try {
    target = targetOf(url, policy);
  } catch (err) {
    return Promise.reject(err as Error);
  }
  const body = init.body === undefined || init.body === null ? undefined : String(init.body);
  return new Promise<Response>((resolve, reject) => {
    const settle = settleOnce<Response>(
      resolve,
      reject,
      () => request,
      () => deadline,
    );
    const request = guardedRequest(target, policy, init.method ?? 'GET', {
      'user-agent': USER_AGENT,
      'accept-encoding': 'identity',
      ...headerRecord(init.headers),
      ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
    });
    const deadline = setTimeout(
      () => settle(new FetchFailed('timeout', `no complete answer within ${policy.timeoutMs} ms`)),
      policy.timeoutMs,
    );
    request.on('error', (err) => settle(err instanceof FetchFailed ? err : new FetchFailed('network', err.message, { cause: err })));
    request.on('response', (response) =>
      readBody(response, policy.maxBytes, settle, (chunks) => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value === undefined) continue;
          for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
        }
        const status = response.statusCode ?? 502;
        const nullBody = status === 204 || status === 205 || status === 304;
        settle(new Response(nullBody ? null : Buffer.concat(chunks), { status, headers }));
      }),
    );
    request.end(body);
  });
}
