import type { AdminCallerDependencies } from '../admin/callers.js';
import type { ClientDirectory } from '../clients/directory.js';
import type { Clock } from '../clock.js';
import type { AccountDependencies } from '../console/account.js';
import { TokenActivity } from '../console/activity.js';
import { consoleClient, consoleClientSecret } from '../console/client.js';
import { ConsoleSessions } from '../console/session.js';
import { ConsoleSignIn } from '../console/sign-in.js';
import { ConsoleTokens, type TokenEndpoint } from '../console/tokens.js';
import type { Config } from '../config/index.js';
import type { Endpoints } from '../endpoints.js';
import type { SecurityEvents } from '../events/types.js';
import type { GrantAdministrationDependencies } from '../grants/administration.js';
import type { IdTokens } from '../oidc/id-token.js';
import { browserCookiesFor } from '../session/cookies.js';
import type { Signer } from '../session/signer.js';
import type { Store } from '../store/types.js';
import type { Keystore } from '../keys/keystore.js';
import type { SubjectChecks } from '../users/subject-status.js';

/**
 * The console's services (src/console/): the built-in client and its secret, the sign-in, the
 * last hour's counters, and the sessions, which reach the token endpoint through what the
 * route layer hands in (`sessionsWith`: the endpoint called in process).
 */
export function consoleServices(
  config: Config,
  deps: { readonly signer: Signer; readonly store: Store; readonly keystore: Pick<Keystore, 'accessTokenAlgorithm'> },
  context: { readonly endpoints: Endpoints; readonly clock: Clock },
) {
  const { endpoints, clock } = context;
  const secret = consoleClientSecret(deps.signer);
  const cookies = browserCookiesFor(config.issuer, endpoints.browserCookiePath);
  return {
    client: consoleClient(endpoints, secret, deps.keystore.accessTokenAlgorithm),
    /** Tokens issued and refused per minute, fed by the server's events (with or without METRICS_PORT). */
    activity: new TokenActivity(clock),
    signIn: new ConsoleSignIn(deps.signer, endpoints, cookies, clock),
    /** The sessions of the console, over the token endpoint `endpoint` reaches. */
    sessionsWith(
      endpoint: TokenEndpoint,
      services: {
        readonly idTokens: IdTokens;
        readonly callers: AdminCallerDependencies;
        readonly subjects: SubjectChecks;
        readonly grants: GrantAdministrationDependencies;
      },
    ): ConsoleSessions {
      const tokens = new ConsoleTokens({ endpoints, secret, endpoint, idTokens: services.idTokens, clock });
      return new ConsoleSessions({ signer: deps.signer, cookies, ttlSeconds: config.sessionTtl, clock, tokens, ...services });
    },
    /** What the account page reads and revokes. */
    account(directory: ClientDirectory, grants: GrantAdministrationDependencies, events: SecurityEvents): AccountDependencies {
      return { grants, families: deps.store, clients: directory, events };
    },
  };
}

export type ConsoleServices = ReturnType<typeof consoleServices>;
