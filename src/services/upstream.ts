import { randomBytes } from 'node:crypto';
import type { UpstreamSignInDependencies } from '../authorize/upstream-sign-in.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import type { Endpoints } from '../endpoints.js';
import { isFederatedSubject } from '../identity/federated-subject.js';
import { UpstreamSignIns } from '../identity/sign-ins.js';
import { UpstreamTokenVault } from '../identity/token-vault.js';
import { UpstreamProviders } from '../identity/upstream-providers.js';
import { UpstreamSignInFailed } from '../identity/upstream.js';
import { IdJagVerifier } from '../identity/id-jag.js';
import { TrustedIdJagIssuers } from '../identity/id-jag-issuers.js';
import type { UpstreamTokenSource } from '../grants/token-exchange.js';
import type { ServiceDependencies } from './index.js';

/** Where a failed discovery is reported (the app's log). */
export interface DiscoveryLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * The services of sign-in through upstream identity providers, when IDENTITY_PROVIDERS_FILE
 * is set (the file may be emptied and filled again by reloads: the services stay).
 */
export function upstreamServices(
  config: Config,
  deps: Pick<ServiceDependencies, 'providers' | 'store' | 'users' | 'outboundFetch'>,
  context: { readonly endpoints: Endpoints; readonly clock: Clock; readonly longestAccessTokenSeconds: number },
) {
  const { providers: registry, store, users } = deps;
  if (!registry) return undefined;
  const { clock, endpoints } = context;
  const settings = config.identityProviders;
  const providers = new UpstreamProviders(
    registry,
    endpoints,
    { allowInsecure: settings.allowInsecure, ca: deps.outboundFetch?.ca, resolve: deps.outboundFetch?.resolve },
    clock,
  );
  // As long as a grant of the user can be used: its code, its refresh family, the last access token.
  const profileTtlSeconds = config.authorizationCodeTtl + config.refreshTokenTtl + context.longestAccessTokenSeconds;
  const vault = new UpstreamTokenVault(store.upstream, settings.upstreamTokenSecret ?? config.sessionSecret ?? randomBytes(32), clock);
  const signIns = new UpstreamSignIns({ providers, store: store.upstream, clock, profileTtlSeconds });
  const signIn: UpstreamSignInDependencies = {
    signIns,
    vault,
    sessionTtlSeconds: config.sessionTtl,
    hasLocalUsers: () => users.size > 0,
  };
  /** For token exchange: the grant's upstream token from `provider`, refreshed when expired; none when it cannot be. */
  const tokens: UpstreamTokenSource = {
    has: (provider) => providers.get(provider) !== undefined,
    tokenFor: async (grantId, provider) => {
      try {
        const held = await vault.forGrant(grantId, providers.refresh);
        return held?.provider === provider ? held.tokens : undefined;
      } catch (err) {
        if (err instanceof UpstreamSignInFailed) return undefined;
        throw err;
      }
    },
  };
  // Enterprise-managed authorization: the ID-JAGs of providers with `id_jag: true` (src/grants/jwt-bearer.ts).
  const idJag = {
    idJag: new IdJagVerifier(new TrustedIdJagIssuers(providers), store, { issuer: config.issuer, clock }),
    providerConfig: (id: string) => registry.get(id),
  };
  /**
   * Starts every provider's discovery now and after each reload of the file, in the
   * background: nothing waits for it, and the first sign-in finds it made. A failure is one
   * warning (the provider, what failed; discovery carries no secret); its next use tries again.
   * Returns how to stop.
   */
  const discoverInBackground = (log: DiscoveryLog): (() => void) => {
    const discover = () =>
      providers.discoverAll((provider, err) => {
        const cause = err.cause instanceof Error ? { cause: err.cause.message } : {};
        log.warn({ provider, err: { message: err.message, ...cause } }, 'identity provider discovery failed; tried again at its next use');
      });
    discover();
    return registry.onReplace(discover);
  };
  return {
    providers,
    discoverInBackground,
    vault,
    idJag,
    signIn,
    tokens,
    /** The claims of a federated user for userinfo: their profile as their provider last gave it. */
    profiles: {
      claimsOf: async (sub: string) => (isFederatedSubject(sub) ? store.upstream.findFederatedProfile(sub) : undefined),
      /** A federated user as the pages name them: the email, username or name their provider gave (the `fed_` sub says nothing). */
      displayNameOf: async (sub: string): Promise<string | undefined> => {
        if (!isFederatedSubject(sub)) return undefined;
        const profile = await store.upstream.findFederatedProfile(sub).catch(() => undefined);
        const name = profile?.email ?? profile?.preferred_username ?? profile?.name;
        return typeof name === 'string' ? name : undefined;
      },
    },
  };
}
