import type { FastifyInstance } from 'fastify';
import type { Test } from 'tap';
import { capturedLogger } from './logs.js';
import { buildTestServer } from './server.js';
import type { OpenStore } from './stores.js';
import { WEB_SECRET } from './authorize-fixtures.js';
import { codeRequest, InjectBrowser, pkcePair, redirectParams, signInAndDecide } from './browser-flow.js';
import { APPS, consoleUsers, PHOTOS_API, PHOTOS_RESOURCE } from './console.js';
import { tokenRequest } from './security-flows.js';

/** What each app of APPS asks for when a person connects it. */
const ASKS: Record<string, string> = { photos: 'openid photos:read photos:write', printer: 'photos:read' };

/**
 * `user` connects the app `clientId` (of APPS) through the code flow, at the photos API:
 * signs in, allows, and the app redeems its code. Its grant and refresh token.
 */
export async function connectApp(
  app: FastifyInstance,
  clientId: 'photos' | 'printer',
  user: { username: string; password: string },
  browser = new InjectBrowser(app),
): Promise<{ grantId: string; refreshToken: string }> {
  const redirectUri = APPS.find((client) => client.client_id === clientId)?.redirect_uris?.[0] as string;
  const { verifier, challenge } = pkcePair();
  const done = await signInAndDecide(browser, codeRequest(clientId, redirectUri, challenge, ASKS[clientId]), user, 'allow', [PHOTOS_API]);
  const code = redirectParams(done.headers.location as string).code;
  if (code === undefined) throw new Error(`no code: ${done.statusCode} ${done.headers.location}`);
  const res = await tokenRequest(app, clientId, WEB_SECRET, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
  if (res.statusCode !== 200) throw new Error(`redeem: ${res.statusCode} ${res.body}`);
  const { access_token: accessToken, refresh_token: refreshToken } = res.json() as { access_token: string; refresh_token: string };
  const grantId = JSON.parse(Buffer.from(accessToken.split('.')[1] as string, 'base64url').toString()).grant_id as string;
  return { grantId, refreshToken };
}

/** A test server with the console's people (consoleUsers), APPS and the photos API, on `open`'s store; its audit lines and its whole log. */
export async function consoleTestServer(
  t: Test,
  open: OpenStore,
  env: Record<string, string> = {},
  moreClients: readonly object[] = [],
  options: { logLevel?: string; providers?: unknown[]; workloads?: unknown[] } = {},
) {
  const logs = capturedLogger(options.logLevel ?? 'info');
  const server = await buildTestServer(t, {
    clients: [...APPS, ...moreClients],
    users: consoleUsers(),
    resources: [PHOTOS_RESOURCE],
    store: await open(t),
    logger: logs.logger,
    env,
    ...(options.providers ? { providers: options.providers } : {}),
    ...(options.workloads ? { workloads: options.workloads } : {}),
  });
  const audit = () =>
    logs
      .lines()
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.audit === true);
  return { ...server, audit, logText: logs.text };
}
