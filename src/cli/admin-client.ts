/**
 * The admin API as the operator command calls it (`--url`, docs/admin-api.md): JSON in and
 * out with the bearer token, lists followed page by page, and every failure one line for
 * `error: …` (exit 1): a problem document (RFC 9457) as its status, name and detail; a
 * network failure as what failed. The token goes in the Authorization header and nowhere
 * else: no message, no log line, not even `util.inspect` of the client (a private field).
 */

const PROBLEM_PREFIX = 'urn:oauth2-token-service:problem:';
/** The largest page the API gives (src/admin/paging.ts): the fewest round trips. */
const PAGE_LIMIT = 500;
const TIMEOUT_SECONDS = 30;

/** A call the admin API refused or that never got an answer: `message` is the one line to print. */
export class AdminApiError extends Error {
  constructor(
    message: string,
    /** The HTTP status, when there was an answer. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'AdminApiError';
  }
}

/** Text from the server, on one line and without control characters, for a message of ours. */
function oneLine(text: string): string {
  const clean = text.replace(/[\s\p{Cc}]+/gu, ' ').trim();
  return clean.length > 500 ? `${clean.slice(0, 500)}…` : clean;
}

interface Problem {
  readonly type?: unknown;
  readonly title?: unknown;
  readonly detail?: unknown;
  readonly errors?: unknown;
}

/** `409 conflict-file-entry: client "web" is declared in clients.json: change it there`, with the field problems the detail leaves out. */
function problemLine(status: number, problem: Problem): string {
  const type = typeof problem.type === 'string' ? problem.type : '';
  const name = type.startsWith(PROBLEM_PREFIX) ? type.slice(PROBLEM_PREFIX.length) : type || 'about:blank';
  const detail = oneLine(typeof problem.detail === 'string' ? problem.detail : typeof problem.title === 'string' ? problem.title : '');
  const fields = (Array.isArray(problem.errors) ? (problem.errors as unknown[]) : [])
    .map((entry) => entry as { field?: unknown; problem?: unknown })
    .map((entry) => oneLine(`${String(entry.field ?? '')}: ${String(entry.problem ?? '')}`))
    .filter((field) => !detail.includes(field));
  return `${status} ${oneLine(name)}${detail ? `: ${detail}` : ''}${fields.length > 0 ? ` (${fields.join('; ')})` : ''}`;
}

export interface AdminRequest {
  readonly query?: Readonly<Record<string, string | undefined>>;
  /** A JSON body, sent as `mediaType` (application/json by default). */
  readonly json?: unknown;
  readonly mediaType?: string;
}

export class AdminClient {
  readonly #token: string;

  /** `server`: the server's URL (its ISSUER), without the trailing `/admin/v1`; `token`: an access token for the admin API. */
  constructor(
    readonly server: string,
    token: string,
  ) {
    this.#token = token;
  }

  /** One call; the parsed JSON answer, or undefined for an answer without body (204). */
  async call(method: string, path: string, request: AdminRequest = {}): Promise<unknown> {
    const url = new URL(`${this.server}/admin/v1${path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(name, value);
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.#token}`,
          accept: 'application/json, application/problem+json',
          ...(request.json === undefined ? {} : { 'content-type': request.mediaType ?? 'application/json' }),
        },
        ...(request.json === undefined ? {} : { body: JSON.stringify(request.json) }),
        // The token is for this server only: a redirect is reported, never followed.
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_SECONDS * 1000),
      });
    } catch (err) {
      throw this.unreachable(err);
    }
    const text = await res.text();
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.get('location');
      throw new AdminApiError(
        `the admin API at ${this.server} answered ${res.status}${location ? ` (to ${oneLine(location)})` : ''}: give the server's own URL as --url`,
        res.status,
      );
    }
    const type = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const json = parsed(text);
    if (!res.ok) {
      if ((type === 'application/problem+json' || type === 'application/json') && isObject(json))
        throw new AdminApiError(`the admin API answered ${problemLine(res.status, json)}`, res.status);
      throw new AdminApiError(
        `the admin API at ${this.server} answered ${res.status}${res.statusText ? ` ${oneLine(res.statusText)}` : ''} with ${type || 'no content type'}, not problem details: is it this server's URL?`,
        res.status,
      );
    }
    if (text === '') return undefined;
    if (json === undefined)
      throw new AdminApiError(`the admin API at ${this.server} answered ${res.status} with something other than JSON`, res.status);
    return json;
  }

  /** Every item of a list, page after page (`{items, next}`; src/admin/paging.ts). */
  async listAll(path: string, query: Readonly<Record<string, string | undefined>> = {}): Promise<unknown[]> {
    const items: unknown[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await this.call('GET', path, { query: { ...query, limit: String(PAGE_LIMIT), cursor } });
      const { items: more, next } = (isObject(page) ? page : {}) as { items?: unknown; next?: unknown };
      if (!Array.isArray(more) || (next !== undefined && (typeof next !== 'string' || next === cursor)))
        throw new AdminApiError(`the admin API at ${this.server} answered a list that is not {"items": [...], "next": "…"}`);
      items.push(...(more as unknown[]));
      if (next === undefined) return items;
      cursor = next;
    }
  }

  private unreachable(err: unknown): AdminApiError {
    if ((err as Error).name === 'TimeoutError')
      return new AdminApiError(`no answer from the admin API at ${this.server} within ${TIMEOUT_SECONDS} seconds`);
    // fetch's own message is "fetch failed"; its cause says what: connect ECONNREFUSED 127.0.0.1:1, a certificate problem, …
    const cause = (err as { cause?: { message?: unknown } }).cause;
    const why = typeof cause?.message === 'string' ? cause.message : (err as Error).message;
    return new AdminApiError(`cannot reach the admin API at ${this.server}: ${oneLine(why)}`);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
