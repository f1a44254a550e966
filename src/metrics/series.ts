import { Counter, Histogram, type Registry } from 'prom-client';

/** The counters and histograms of the server, every name under `oauth2_` (README, "Metrics"). */
export function defineSeries(registry: Registry) {
  const registers = [registry];
  const series = {
    tokensIssued: new Counter({
      name: 'oauth2_tokens_issued_total',
      help: 'Access tokens issued, by grant type and client (dynamic and metadata-document clients aggregated)',
      labelNames: ['grant_type', 'client_id'] as const,
      registers,
    }),
    tokenErrors: new Counter({
      name: 'oauth2_token_errors_total',
      help: 'Error answers of the token endpoint, by RFC 6749 error code',
      labelNames: ['error'] as const,
      registers,
    }),
    authorizations: new Counter({
      name: 'oauth2_authorizations_total',
      help: 'Outcomes of authorization requests: approved, denied (by the user), error (sent to the client or shown)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    authorizationErrors: new Counter({
      name: 'oauth2_authorization_errors_total',
      help: 'Errors of the authorization endpoint, by error code',
      labelNames: ['error'] as const,
      registers,
    }),
    deviceAuthorizations: new Counter({
      name: 'oauth2_device_authorizations_total',
      help: 'Device authorizations (RFC 8628), by outcome: started, approved, denied (by the user), expired (found so by a poll)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    signIns: new Counter({
      name: 'oauth2_signins_total',
      help: 'Password sign-ins, by channel (login_page, password_grant) and result (succeeded, failed, throttled)',
      labelNames: ['channel', 'result'] as const,
      registers,
    }),
    upstreamLogins: new Counter({
      name: 'oauth2_upstream_logins_total',
      help: 'Sign-ins through upstream identity providers, by provider id and result (succeeded, failed)',
      labelNames: ['provider', 'result'] as const,
      registers,
    }),
    refreshReuse: new Counter({
      name: 'oauth2_refresh_token_reuse_detected_total',
      help: 'Rotated refresh tokens presented again: each revoked its whole grant',
      registers,
    }),
    codeReplays: new Counter({
      name: 'oauth2_authorization_code_replays_total',
      help: 'Authorization codes presented a second time: each revoked its grant',
      registers,
    }),
    revocations: new Counter({
      name: 'oauth2_revocations_total',
      help: 'Revocations: kind grant (a refresh family and its access tokens) or access_token, by reason',
      labelNames: ['kind', 'reason'] as const,
      registers,
    }),
    introspections: new Counter({
      name: 'oauth2_introspections_total',
      help: 'Introspection answers, by result (active, inactive)',
      labelNames: ['result'] as const,
      registers,
    }),
    dpopProofFailures: new Counter({
      name: 'oauth2_dpop_proof_failures_total',
      help: 'DPoP proofs refused (RFC 9449), by reason',
      labelNames: ['reason'] as const,
      registers,
    }),
    clientAuthenticationFailures: new Counter({
      name: 'oauth2_client_authentication_failures_total',
      help: 'Client credentials refused (invalid_client) at the token, revocation and introspection endpoints, by method and the check that failed',
      labelNames: ['method', 'reason'] as const,
      registers,
    }),
    workloadRefusals: new Counter({
      name: 'oauth2_workload_refusals_total',
      help: 'Workload JWTs refused (invalid_grant) at the token endpoint, by the check that failed',
      labelNames: ['reason'] as const,
      registers,
    }),
    clientRegistrations: new Counter({
      name: 'oauth2_client_registrations_total',
      help: 'Dynamic client registrations (RFC 7591) created and deleted, by action',
      labelNames: ['action'] as const,
      registers,
    }),
    adminChanges: new Counter({
      name: 'oauth2_admin_changes_total',
      help: 'Changes made through the admin API, by entity (client, resource, provider, workload_trust, user, grant) and action',
      labelNames: ['entity', 'action'] as const,
      registers,
    }),
    keyReloads: new Counter({
      name: 'oauth2_signing_key_reloads_total',
      help: 'Loads of KEYS_DIR (start, SIGHUP, interval), by result (loaded, failed)',
      labelNames: ['result'] as const,
      registers,
    }),
    requestDuration: new Histogram({
      name: 'oauth2_http_request_duration_seconds',
      help: 'HTTP request duration, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    storeCommandDuration: new Histogram({
      name: 'oauth2_store_command_duration_seconds',
      help: 'Redis store operations (one script or command each, replica acknowledgement included), by operation',
      labelNames: ['operation'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers,
    }),
    storeCommandErrors: new Counter({
      name: 'oauth2_store_command_errors_total',
      help: 'Redis store operations that failed or timed out (StoreUnavailableError), by operation',
      labelNames: ['operation'] as const,
      registers,
    }),
  };
  // At 0 from the start: a series born at 1 has no increase(), so an alert would miss the first failure.
  series.keyReloads.inc({ result: 'failed' }, 0);
  return series;
}

export type Series = ReturnType<typeof defineSeries>;
