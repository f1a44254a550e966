import type { Client } from '../clients/client.js';
import { ConfigError } from './environment.js';
import { isLoopbackHost } from '../oauth/urls.js';

/**
 * What production refuses at start: a server must know its public name, answer on https
 * unless it runs on this computer, and keep browser sign-ins valid across restarts and
 * instances. Pure: the entries (src/main.ts) decide whether they run in production and
 * hand over what they loaded.
 */

/**
 * Production: NODE_ENV=production, or the server's own module inside a node_modules folder
 * (the installed package: `node_modules/.bin/oauth2-token-service serve`). `modulePath` is
 * injected so tests decide where the server "is".
 */
export function isProduction(modulePath: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return env.NODE_ENV === 'production' || modulePath.split(/[\\/]/).includes('node_modules');
}

/** What decides whether browsers sign in here. */
export interface BrowserFlowSettings {
  readonly dynamicClientRegistration: 'off' | 'open' | 'token';
  readonly dynamicClientGrants: readonly string[];
  readonly clientIdMetadata: { readonly enabled: boolean };
}

/** Grants whose requests go through the authorization endpoint, so through a browser's sign-in and consent. */
const BROWSER_GRANTS = ['authorization_code', 'implicit'] as const;

/**
 * Why users may sign in with a browser here (undefined: nobody can): a client of CLIENTS_FILE
 * with a grant of the authorization endpoint, dynamic registration that gives clients the code
 * flow, or Client ID Metadata Documents (always the code flow). Upstream identity providers
 * and USERS_FILE alone open no browser flow: sign-in only ever happens inside one of these.
 */
export function browserFlow(
  settings: BrowserFlowSettings,
  clients: readonly Pick<Client, 'clientId' | 'grantTypes'>[],
): string | undefined {
  const client = clients.find((c) => BROWSER_GRANTS.some((grant) => c.grantTypes.has(grant)));
  if (client) {
    const grant = BROWSER_GRANTS.find((g) => client.grantTypes.has(g)) as string;
    return `the client ${client.clientId} of CLIENTS_FILE has the ${grant} grant`;
  }
  if (settings.dynamicClientRegistration !== 'off' && settings.dynamicClientGrants.includes('authorization_code'))
    return `DYNAMIC_CLIENT_REGISTRATION=${settings.dynamicClientRegistration} registers clients with the authorization_code grant`;
  if (settings.clientIdMetadata.enabled) return 'CLIENT_ID_METADATA_DOCUMENTS=true';
  return undefined;
}

export interface ProductionSettings extends BrowserFlowSettings {
  readonly issuer: string;
  /** Whether ISSUER is set (else `issuer` is the development default, http://localhost:PORT). */
  readonly issuerConfigured: boolean;
  readonly sessionSecret: string | undefined;
  /** Server processes (WORKERS): above 1, they must share one key whatever flows they serve. */
  readonly workers: number;
}

/** The line refusing to run without SESSION_SECRET; undefined when it may. */
export function sessionSecretProblem(
  settings: ProductionSettings,
  clients: readonly Pick<Client, 'clientId' | 'grantTypes'>[],
): string | undefined {
  if (settings.sessionSecret !== undefined) return undefined;
  // Outside production the primary makes a random key for its workers; here it is refused like any key lost on restart.
  if (settings.workers > 1)
    return `SESSION_SECRET is not set, and WORKERS starts ${settings.workers} processes that must share one key (sign-in sessions, signed forms, DPoP nonces): set SESSION_SECRET="$(openssl rand -base64 48)", the same on every instance`;
  const flow = browserFlow(settings, clients);
  return flow === undefined
    ? undefined
    : `SESSION_SECRET is not set, and users sign in with a browser (${flow}): set SESSION_SECRET="$(openssl rand -base64 48)", the same on every instance`;
}

/** One line per problem, each naming the variable and the fix; none when production may start. */
export function productionProblems(settings: ProductionSettings, clients: readonly Pick<Client, 'clientId' | 'grantTypes'>[]): string[] {
  const problems: string[] = [];
  const { issuer } = settings;
  if (!settings.issuerConfigured) {
    problems.push(
      'ISSUER is not set: set it to the public https URL of this server (ISSUER=https://auth.example.com), the iss of every token and the base of every endpoint URL',
    );
  } else {
    const url = new URL(issuer);
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
      const https = `https:${issuer.slice('http:'.length)}`;
      problems.push(
        `ISSUER must use https in production (http only on localhost, 127.0.0.1 or [::1]): set ISSUER=${https}, the URL clients reach (TLS may end at a proxy in front)`,
      );
    }
  }
  const secret = sessionSecretProblem(settings, clients);
  if (secret !== undefined) problems.push(secret);
  return problems;
}

/** Throws a ConfigError with every problem production has with these settings and clients. */
export function assertProductionReady(settings: ProductionSettings, clients: readonly Pick<Client, 'clientId' | 'grantTypes'>[]): void {
  const problems = productionProblems(settings, clients);
  if (problems.length > 0) throw new ConfigError(problems);
}
