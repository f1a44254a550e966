import type { ServerResponse } from 'node:http';

/**
 * The REST API part of the GitHub-compatible test server (github-server.ts): what GitHub
 * documents for `GET /user`, `GET /user/emails` and `GET /user/orgs`, its error bodies, its
 * JSON media type, its scope headers and its pagination (`per_page`, `page`, a `Link` header).
 */

export interface GithubEmail {
  readonly email: string;
  readonly primary: boolean;
  readonly verified: boolean;
  readonly visibility: 'public' | 'private' | null;
}

export interface GithubOrganization {
  readonly login: string;
  readonly id: number;
}

/** A GitHub user as the test server knows them. */
export interface GithubAccount {
  readonly id: number;
  login: string;
  name: string | null;
  avatar_url: string;
  /** The public profile email (GET /user's `email`): null when the user keeps it private. */
  email: string | null;
  emails: GithubEmail[];
  orgs: GithubOrganization[];
}

/** A user's access token at the test server. */
export interface IssuedToken {
  readonly userId: number;
  readonly scopes: readonly string[];
  /** Milliseconds (the server's clock); undefined: an OAuth app's token, which does not expire. */
  readonly expiresAt: number | undefined;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const DOCS = 'https://docs.github.com/rest';

/** The scopes that reach each resource (a broader scope includes the narrower ones). */
const EMAIL_SCOPES = ['user', 'user:email'];
const ORG_SCOPES = ['read:org', 'write:org', 'admin:org', 'user'];

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': JSON_TYPE, ...headers }).end(JSON.stringify(body));
}

function apiError(response: ServerResponse, status: number, message: string, documentation = DOCS): void {
  sendJson(response, status, { message, documentation_url: documentation, status: String(status) });
}

/** The page asked for (`per_page` 30 by default, at most 100; `page` from 1) and the Link header GitHub sends with it. */
function paginate<T>(items: readonly T[], url: URL, resource: string): { page: T[]; link: string | undefined } {
  const asked = Number(url.searchParams.get('per_page') ?? '30');
  const perPage = Number.isInteger(asked) && asked > 0 ? Math.min(asked, 100) : 30;
  const requested = Number(url.searchParams.get('page') ?? '1');
  const page = Number.isInteger(requested) && requested > 0 ? requested : 1;
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const at = (n: number) => {
    const target = new URL(resource);
    target.searchParams.set('per_page', String(perPage));
    target.searchParams.set('page', String(n));
    return target.href;
  };
  const rels = [
    ...(page > 1 ? [`<${at(page - 1)}>; rel="prev"`] : []),
    ...(page < last ? [`<${at(page + 1)}>; rel="next"`, `<${at(last)}>; rel="last"`] : []),
    ...(page > 1 ? [`<${at(1)}>; rel="first"`] : []),
  ];
  return { page: items.slice((page - 1) * perPage, page * perPage), link: rels.length > 0 ? rels.join(', ') : undefined };
}

function publicUser(account: GithubAccount) {
  return {
    login: account.login,
    id: account.id,
    node_id: `U_${Buffer.from(String(account.id)).toString('base64url')}`,
    avatar_url: account.avatar_url,
    html_url: `https://github.com/${account.login}`,
    type: 'User',
    site_admin: false,
    name: account.name,
    company: null,
    blog: '',
    location: null,
    email: account.email,
    bio: null,
    public_repos: 0,
    followers: 0,
    following: 0,
    created_at: '2011-01-25T18:44:36Z',
    updated_at: '2026-01-01T00:00:00Z',
  };
}

/**
 * Answers an API request (`path` below the API's prefix). `token` is what the
 * Authorization header carried (`Bearer` or `token` scheme), `found` the token's record.
 */
export function answerApi(
  response: ServerResponse,
  url: URL,
  path: string,
  apiUrl: string,
  presented: string | undefined,
  found: { token: IssuedToken; account: GithubAccount } | undefined,
): void {
  if (presented === undefined) return apiError(response, 401, 'Requires authentication');
  if (found === undefined) return apiError(response, 401, 'Bad credentials');
  const { token, account } = found;
  const scopeHeaders = (accepted: readonly string[]) => ({
    'x-oauth-scopes': token.scopes.join(', '),
    'x-accepted-oauth-scopes': accepted.join(', '),
  });
  const has = (scopes: readonly string[]) => token.scopes.some((scope) => scopes.includes(scope));
  if (path === '/user') return sendJson(response, 200, publicUser(account), scopeHeaders([]));
  if (path === '/user/emails') {
    if (!has(EMAIL_SCOPES))
      return apiError(response, 404, 'Not Found', `${DOCS}/users/emails#list-email-addresses-for-the-authenticated-user`);
    const { page, link } = paginate(account.emails, url, `${apiUrl}${path}`);
    return sendJson(response, 200, page, { ...scopeHeaders(['user', 'user:email']), ...(link ? { link } : {}) });
  }
  if (path === '/user/orgs') {
    if (!has(ORG_SCOPES))
      return apiError(response, 403, 'You need at least read:org scope or user scope to list your organizations.', `${DOCS}/orgs/orgs`);
    const { page, link } = paginate(
      account.orgs.map((org) => ({ login: org.login, id: org.id, url: `${apiUrl}/orgs/${org.login}`, description: null })),
      url,
      `${apiUrl}${path}`,
    );
    return sendJson(response, 200, page, { ...scopeHeaders(['admin:org', 'read:org', 'user', 'write:org']), ...(link ? { link } : {}) });
  }
  return apiError(response, 404, 'Not Found');
}
