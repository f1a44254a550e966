import { randomBytes, timingSafeEqual } from 'node:crypto';
import { type Clock, nowSeconds } from '../clock.js';
import { InvalidRequest, TemporarilyUnavailable } from '../errors/index.js';
import type { Parameters } from '../oauth/form-params.js';
import type { UpstreamStore } from '../store/upstream-types.js';
import { accessDecision, rolesOf } from './access-rules.js';
import { federatedSubject } from './federated-subject.js';
import { bindingDigest, openSignIn, sealSignIn, stateDigest, UPSTREAM_SIGN_IN_TTL_SECONDS } from './sign-in-record.js';
import type { KeptUpstream } from './token-vault.js';
import type { UpstreamProviders } from './upstream-providers.js';
import { type SignInDemands, type UpstreamChecks, UpstreamSignInFailed } from './upstream.js';

/**
 * Sign-in through an upstream identity provider, in two halves around the browser's visit
 * there. `begin` records the sign-in (sealed, in the store: any instance can finish it,
 * after a restart too) and gives the provider's authorization URL; `finish` takes that
 * record exactly once by the callback's `state`, and only when it belongs to this browser
 * and provider (the store compares before it takes), has the provider exchange the code and say who signed in, applies the
 * provider's access rules, and keeps the user's profile for userinfo.
 */

/** A provider the login page may offer: its id, its name on the button, where the button's form is redirected. */
export interface UpstreamMethod {
  readonly id: string;
  readonly name: string;
  readonly origin: string;
}

export type FinishedSignIn = { readonly parameters: Parameters; readonly provider: string } & (
  | {
      readonly ok: true;
      readonly sub: string;
      readonly amr: readonly string[];
      readonly authTime: number | undefined;
      /** The roles the provider's `roles` rules gave the user (carried in the session). */
      readonly roles: readonly string[];
      /** What the session keeps (keep_tokens, end_session), if anything. */
      readonly kept: KeptUpstream | undefined;
    }
  /** The user cancelled, the provider failed, or the access rules refused: `reason` is for the audit log. */
  | {
      readonly ok: false;
      readonly reason: string;
      /** For the operator (the audit line): what went wrong, in the library's or our words; never a token. */
      readonly detail?: string | undefined;
    }
);

/**
 * The callback cannot be matched to a sign-in this browser started (no state, an unknown,
 * expired or used one, another browser's): nothing is issued, and nobody can be told at a
 * redirect URI, since the request is not known.
 */
export class UpstreamCallbackRefused extends InvalidRequest {}

/** The provider cannot be reached to start a sign-in (its discovery failed): a page says so. */
export class UpstreamUnavailable extends TemporarilyUnavailable {}

export interface UpstreamSignInsDependencies {
  readonly providers: UpstreamProviders;
  readonly store: UpstreamStore;
  readonly clock: Clock;
  /** How long a federated user's profile is kept after their last sign-in: as long as a grant of theirs can be used. */
  readonly profileTtlSeconds: number;
}

const random = () => randomBytes(32).toString('base64url');

/**
 * How long the login page waits for a provider's discovery when the one started with the
 * server has not finished (its CSP needs the authorization endpoint's origin).
 */
const PREPARE_WAIT_MS = 2000;

function withinWait(preparing: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, PREPARE_WAIT_MS);
    timer.unref();
  });
  return Promise.race([preparing, waited]).finally(() => clearTimeout(timer));
}

/** The failure's message and its cause's (openid-client says which check failed), for the audit line. */
function detailOf(err: UpstreamSignInFailed): string {
  const cause = err.cause instanceof Error ? err.cause.message : undefined;
  return (cause === undefined ? err.message : `${err.message}: ${cause}`).slice(0, 500);
}

/** Whether the callback came from the browser that started the sign-in (its binding, compared in constant time). */
function sameBrowser(recorded: string, presented: string): boolean {
  const a = Buffer.from(recorded);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

const CALLBACK_REFUSED =
  'this sign-in cannot be completed: it expired, was completed already, or was started in another browser; go back to the application and sign in again';
const STARTED_ELSEWHERE =
  'this sign-in was started in another browser and can only be completed there; to sign in here, go back to the application and sign in again';

export class UpstreamSignIns {
  constructor(private readonly deps: UpstreamSignInsDependencies) {}

  /**
   * The providers the login page offers, in the file's order, each with the origin its
   * button's form is redirected to. A provider not yet discovered is given up to
   * PREPARE_WAIT_MS to be.
   */
  async methods(): Promise<UpstreamMethod[]> {
    const providers = this.deps.providers.all().flatMap((config) => {
      const provider = this.deps.providers.get(config.id);
      return provider ? [provider] : [];
    });
    // Not discovered (down at start, or still answering): its issuer's origin stands in.
    await Promise.all(providers.map((provider) => withinWait(provider.prepare().catch(() => undefined))));
    return providers.map((provider) => ({ id: provider.config.id, name: provider.config.name, origin: provider.authorizationOrigin() }));
  }

  /** The ids of the providers, in the file's order. */
  ids(): string[] {
    return this.deps.providers.all().map((p) => p.id);
  }

  has(id: string): boolean {
    return this.deps.providers.get(id) !== undefined;
  }

  /**
   * Where the browser ends its session at `providerId` (with `end_session`), coming back to
   * our signed-out URL for it with `state`; undefined when the provider does not ask for it,
   * has no end-session endpoint, or cannot be reached (our own session is over anyway).
   */
  async endSessionUrl(providerId: string, idToken: string | undefined, state: string): Promise<URL | undefined> {
    const provider = this.deps.providers.get(providerId);
    if (!provider?.config.end_session) return undefined;
    try {
      return await provider.endSessionUrl(idToken, this.deps.providers.signedOutUrl(providerId), state);
    } catch {
      return undefined;
    }
  }

  /**
   * Records the sign-in and returns where to send the browser. `browser` binds it to the
   * browser that starts it (a MAC of its CSRF cookie). The provider's unknown id is the
   * caller's to check; a provider that cannot be reached throws UpstreamUnavailable.
   */
  async begin(providerId: string, parameters: Parameters, demands: SignInDemands, browser: string): Promise<URL> {
    const provider = this.deps.providers.get(providerId);
    if (!provider) throw new InvalidRequest(`no identity provider "${providerId}"`);
    const checks: UpstreamChecks = { state: random(), nonce: random(), codeVerifier: random() };
    let url: URL;
    try {
      url = await provider.authorizationUrl(checks, demands);
    } catch (err) {
      throw new UpstreamUnavailable(`${provider.config.name} cannot be reached right now; try again in a moment`, 5, { cause: err });
    }
    const record = { provider: providerId, nonce: checks.nonce, codeVerifier: checks.codeVerifier, browser, parameters, demands };
    const binding = bindingDigest(providerId, browser);
    await this.deps.store.saveUpstreamSignIn(stateDigest(checks.state), binding, sealSignIn(checks, record), UPSTREAM_SIGN_IN_TTL_SECONDS);
    return url;
  }

  /**
   * The provider's callback (`query`: what the browser brought back). Throws
   * UpstreamCallbackRefused when it matches no sign-in of this browser at this provider;
   * otherwise the sign-in's outcome, with the authorization request to resume.
   */
  async finish(providerId: string, query: URLSearchParams, browser: string | undefined): Promise<FinishedSignIn> {
    const state = query.get('state');
    if (state === null || state === '' || query.getAll('state').length > 1 || browser === undefined)
      throw new UpstreamCallbackRefused(CALLBACK_REFUSED);
    // Taken once, and only by the browser that started it at this provider: a replayed or
    // concurrent callback finds nothing; another browser's (one that learnt the state) is
    // refused and leaves the sign-in to its own browser.
    const taken = await this.deps.store.takeUpstreamSignIn(stateDigest(state), bindingDigest(providerId, browser));
    if (taken === 'elsewhere') throw new UpstreamCallbackRefused(STARTED_ELSEWHERE);
    const record = taken === 'unknown' ? undefined : openSignIn(state, taken.sealed);
    if (!record || record.provider !== providerId || !sameBrowser(record.browser, browser))
      throw new UpstreamCallbackRefused(CALLBACK_REFUSED);
    const { parameters } = record;
    const fail = (reason: string, detail?: string): FinishedSignIn => ({ ok: false, parameters, provider: providerId, reason, detail });
    const provider = this.deps.providers.get(providerId);
    // Removed from the file between the redirect and the callback.
    if (!provider) return fail('provider_removed');
    // The callback as the provider addressed it: our registered redirect URI (never the Host
    // header's idea of it), with the parameters it brought.
    const callback = new URL(this.deps.providers.callbackUrl(providerId));
    for (const [name, value] of query) callback.searchParams.append(name, value);
    let identity;
    try {
      identity = await provider.complete(callback, { state, nonce: record.nonce, codeVerifier: record.codeVerifier });
    } catch (err) {
      if (err instanceof UpstreamSignInFailed) return fail(err.reason, detailOf(err));
      throw err;
    }
    const decision = accessDecision(provider.config, identity);
    if (!decision.allowed) return fail(`refused: ${decision.reason}`);
    const sub = federatedSubject(providerId, identity.subject);
    await this.deps.store.saveFederatedProfile(sub, identity.profile, this.deps.profileTtlSeconds, providerId);
    const { keep_tokens: keepTokens, end_session: endSession } = provider.config;
    const kept: KeptUpstream | undefined =
      keepTokens || endSession
        ? {
            provider: providerId,
            ...(keepTokens ? { tokens: { ...identity.tokens, idToken: undefined } } : {}),
            ...(endSession ? { idToken: identity.tokens.idToken } : {}),
          }
        : undefined;
    const now = nowSeconds(this.deps.clock);
    // The upstream's auth_time, when it said one that is not in the future.
    const authTime = identity.authTime !== undefined && identity.authTime <= now ? identity.authTime : undefined;
    const roles = rolesOf(provider.config, identity);
    return { ok: true, parameters, provider: providerId, sub, amr: identity.amr ?? [], authTime, roles, kept };
  }
}
