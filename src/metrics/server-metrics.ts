import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { type Clock, nowSeconds } from '../clock.js';
import type { SecurityEvent, SecurityEvents } from '../events/types.js';
import type { StoreCommandObserver } from '../store/types.js';
import { clientLabel } from './client-label.js';
import { defineSeries, type Series } from './series.js';

/** Whatever GET /metrics serves: one server's series, or (WORKERS>1) the sum over the workers. */
export interface MetricsSource {
  scrape(): Promise<{ contentType: string; body: string }>;
}

/** What the key gauges read at scrape time (the Keystore). */
export interface SigningKeySchedule {
  signingKeyAt(now: number): { readonly kid: string; readonly created_at: number } | undefined;
  nextSigningKeyAfter(now: number): { readonly kid: string; readonly signs_from: number } | undefined;
}

export interface ServerMetricsOptions {
  readonly keys: SigningKeySchedule;
  readonly clock: Clock;
  /** Node's process metrics (collectDefaultMetrics); off in tests that assert exact output. */
  readonly processMetrics?: boolean;
}

/**
 * The Prometheus series of one server (prom-client, its own Registry: no global state).
 * Counts the security events it is handed as a `SecurityEvents` consumer, observes request
 * durations (the HTTP layer calls `observeRequest`) and store operations (as the store's
 * `StoreCommandObserver`); the key gauges are computed from the keystore at scrape time.
 */
export class ServerMetrics implements SecurityEvents, StoreCommandObserver, MetricsSource {
  readonly registry = new Registry();
  private readonly series: Series;

  constructor(options: ServerMetricsOptions) {
    this.series = defineSeries(this.registry);
    const { keys, clock } = options;
    const registers = [this.registry];
    new Gauge({
      name: 'oauth2_signing_key_age_seconds',
      help: 'Seconds since the key that signs now was created (kid label); absent when no key signs',
      labelNames: ['kid'] as const,
      registers,
      // WORKERS>1: every worker reads the same keys; the primary reports the oldest, not a sum.
      aggregator: 'max',
      collect() {
        this.reset();
        const now = nowSeconds(clock);
        const key = keys.signingKeyAt(now);
        if (key) this.set({ kid: key.kid }, now - key.created_at);
      },
    });
    new Gauge({
      name: 'oauth2_signing_key_next_in_seconds',
      help: 'Seconds until the next scheduled key starts signing (kid label); absent when no successor is scheduled',
      labelNames: ['kid'] as const,
      registers,
      aggregator: 'min',
      collect() {
        this.reset();
        const now = nowSeconds(clock);
        const next = keys.nextSigningKeyAfter(now);
        if (next) this.set({ kid: next.kid }, next.signs_from - now);
      },
    });
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  emit(event: SecurityEvent): void {
    const s = this.series;
    switch (event.event) {
      case 'token.issued':
        s.tokensIssued.inc({ grant_type: event.grant, client_id: clientLabel(event.clientId) });
        return;
      case 'token.failed':
        s.tokenErrors.inc({ error: event.error });
        return;
      case 'authorization.approved':
        s.authorizations.inc({ outcome: 'approved' });
        return;
      case 'authorization.denied':
        s.authorizations.inc({ outcome: 'denied' });
        return;
      case 'device.authorization_started':
        s.deviceAuthorizations.inc({ outcome: 'started' });
        return;
      case 'device.approved':
        s.deviceAuthorizations.inc({ outcome: 'approved' });
        return;
      case 'device.denied':
        s.deviceAuthorizations.inc({ outcome: 'denied' });
        return;
      case 'device.expired':
        s.deviceAuthorizations.inc({ outcome: 'expired' });
        return;
      case 'authorization.failed':
        s.authorizations.inc({ outcome: 'error' });
        s.authorizationErrors.inc({ error: event.error });
        return;
      case 'signin.succeeded':
        s.signIns.inc({ channel: event.channel, result: 'succeeded' });
        return;
      case 'signin.failed':
        s.signIns.inc({ channel: event.channel, result: 'failed' });
        return;
      case 'signin.throttled':
        s.signIns.inc({ channel: event.channel, result: 'throttled' });
        return;
      case 'login.succeeded':
        s.upstreamLogins.inc({ provider: event.provider, result: 'succeeded' });
        return;
      case 'login.failed':
        s.upstreamLogins.inc({ provider: event.provider, result: 'failed' });
        return;
      case 'refresh.reuse_detected':
        s.refreshReuse.inc();
        return;
      case 'code.replayed':
        s.codeReplays.inc();
        return;
      case 'grant.revoked':
        s.revocations.inc({ kind: 'grant', reason: event.reason });
        return;
      case 'token.revoked':
        s.revocations.inc({ kind: 'access_token', reason: 'revocation_request' });
        return;
      case 'introspection.answered':
        s.introspections.inc({ result: event.active ? 'active' : 'inactive' });
        return;
      case 'dpop.proof_failed':
        s.dpopProofFailures.inc({ reason: event.reason });
        return;
      case 'workload.refused':
        s.workloadRefusals.inc({ reason: event.reason });
        return;
      case 'client.registered':
        s.clientRegistrations.inc({ action: 'registered' });
        return;
      case 'client.deleted':
        s.clientRegistrations.inc({ action: 'deleted' });
        return;
      case 'client.authentication_failed':
        s.clientAuthenticationFailures.inc({ method: event.method, reason: event.reason });
        return;
      case 'key.loaded':
        s.keyReloads.inc({ result: 'loaded' });
        return;
      case 'key.reload_failed':
        s.keyReloads.inc({ result: 'failed' });
        return;
      case 'admin.changed':
        s.adminChanges.inc({ entity: event.entity, action: event.action });
        return;
    }
  }

  /** One answered HTTP request; `route` is the route pattern (never the raw URL), or `unmatched`. */
  observeRequest(method: string, route: string, statusCode: number, seconds: number): void {
    this.series.requestDuration.observe({ method, route, status_code: String(statusCode) }, seconds);
  }

  storeCommandFinished(operation: string, seconds: number, succeeded: boolean): void {
    this.series.storeCommandDuration.observe({ operation }, seconds);
    if (!succeeded) this.series.storeCommandErrors.inc({ operation });
  }

  /** The exposition: Prometheus text format. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
