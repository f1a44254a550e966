import type { GrantRevokedEvent } from './grant-revocations.js';
import type { WorkloadRefusedEvent } from './workload-refusals.js';

/**
 * Security-relevant happenings, reported by the domain through `SecurityEvents` (handed in
 * as a dependency, never a global). Consumers: the audit log (src/events/audit-log.ts) and
 * the metrics (src/metrics/). No event carries a token, code, secret, password or
 * username: only identifiers that are safe to keep (client_id, sub, jti, grant id).
 */

/** How a user signed in: the login page, or the password grant at the token endpoint. */
export type SignInChannel = 'login_page' | 'password_grant';

/** The grant that issued an access token; `implicit` is the authorization endpoint's `response_type=token`. */
export type IssuingGrant =
  | 'authorization_code'
  | 'client_credentials'
  | 'password'
  | 'refresh_token'
  | 'implicit'
  | 'token_exchange'
  /** RFC 7523 §2.1 with an ID-JAG (enterprise-managed authorization). */
  | 'jwt_bearer'
  /** RFC 7523 §2.1 with a workload's own JWT (WORKLOAD_TRUSTS_FILE), without a client. */
  | 'workload'
  /** RFC 8628: the device authorization grant. */
  | 'device_code';

export type { GrantRevocationReason } from './grant-revocations.js';

import type { ClientAuthenticationFailure, ClientAuthenticationMethod } from './client-authentication.js';

export type { ClientAuthenticationFailure, ClientAuthenticationMethod } from './client-authentication.js';

import type { AdminAction, AdminActor, AdminEntity } from './admin-changes.js';

export type { AdminAction, AdminActor, AdminEntity } from './admin-changes.js';

export type SecurityEvent =
  | {
      readonly event: 'token.issued';
      readonly grant: IssuingGrant;
      readonly clientId: string;
      readonly sub: string;
      readonly scope: readonly string[];
      readonly resource: readonly string[];
      readonly jti: string;
      readonly grantId?: string | undefined;
      readonly refreshToken: boolean;
    }
  | {
      readonly event: 'authorization.approved';
      readonly clientId: string;
      readonly sub: string;
      readonly responseType: string;
      readonly scope: readonly string[];
      readonly resource: readonly string[];
      /** The grant the code starts (response_type=code). */
      readonly grantId?: string | undefined;
    }
  | { readonly event: 'authorization.denied'; readonly clientId: string; readonly sub: string }
  /** RFC 8628: a device authorization started (§3.1), approved or denied by its user, or found expired by a poll. */
  | {
      readonly event: 'device.authorization_started' | 'device.approved';
      readonly clientId: string;
      readonly grantId: string;
      readonly scope: readonly string[];
      readonly resource: readonly string[];
      /** Who approved (device.approved). */
      readonly sub?: string;
    }
  | { readonly event: 'device.denied'; readonly clientId: string; readonly sub: string; readonly grantId: string }
  | { readonly event: 'device.expired'; readonly clientId: string; readonly grantId: string }
  | { readonly event: 'signin.succeeded'; readonly sub: string; readonly channel: SignInChannel; readonly address: string }
  /** No username: people type passwords into the username field. */
  | {
      readonly event: 'signin.failed';
      readonly channel: SignInChannel;
      readonly address: string;
      /** The password was right, but the operator disabled the user (answered as wrong credentials). */
      readonly reason?: 'user_disabled';
    }
  /** A sign-in through an upstream identity provider (IDENTITY_PROVIDERS_FILE), for the client `clientId`. */
  | {
      readonly event: 'login.succeeded';
      readonly provider: string;
      readonly sub: string;
      readonly clientId: string;
      readonly address: string;
    }
  /** `reason`: cancelled, upstream_error, provider_unavailable, invalid_response, refused: <rule>, … (never the upstream's own text). */
  | {
      readonly event: 'login.failed';
      readonly provider: string;
      readonly reason: string;
      readonly clientId: string;
      readonly address: string;
      /** What the provider or the checks said (openid-client's message), never a token. */
      readonly detail?: string;
    }
  | {
      readonly event: 'signin.throttled';
      readonly channel: SignInChannel;
      readonly address: string;
      readonly retryAfterSeconds: number;
      /** Refused while the limit was held by attempts still being checked, not by failures. */
      readonly checksInFlight?: true;
    }
  /**
   * RFC 8693 token exchange: `clientId` exchanged a token issued to `subjectClientId` for
   * `sub`, for `target` (a resource, or `upstream:<provider>` for the user's upstream token);
   * `jti` of the new token (none for an upstream token, which is not ours).
   */
  | {
      readonly event: 'token.exchanged';
      readonly clientId: string;
      readonly sub: string;
      readonly subjectClientId: string;
      readonly target: string;
      readonly jti?: string;
    }
  /**
   * An authorization grant assertion refused at the token endpoint (an ID-JAG with the JWT
   * bearer grant): `reason` is the check that failed (untrusted_issuer, wrong_audience,
   * other_client, replayed, expired, …), never the assertion; the client is told only invalid_grant.
   */
  | { readonly event: 'assertion.refused'; readonly grant: 'jwt_bearer'; readonly clientId: string; readonly reason: string }
  /** A workload's JWT refused (src/events/workload-refusals.ts). */
  | WorkloadRefusedEvent
  | { readonly event: 'refresh.reuse_detected'; readonly clientId: string; readonly sub: string; readonly grantId: string }
  | { readonly event: 'code.replayed'; readonly clientId: string; readonly grantId: string }
  | GrantRevokedEvent
  | { readonly event: 'token.revoked'; readonly clientId: string; readonly jti: string }
  /** "Sign out everywhere" on the account page: every browser session of `sub` ended, by the user (nothing else revoked). */
  | { readonly event: 'sessions.revoked'; readonly sub: string; readonly actor: { readonly sub: string } }
  | {
      readonly event: 'client.registered';
      readonly clientId: string;
      readonly authMethod: string;
      readonly grantTypes: readonly string[];
      readonly address: string;
    }
  | { readonly event: 'client.deleted'; readonly clientId: string }
  /**
   * A client's credentials were refused (the client got invalid_client). `clientId` is the one
   * claimed (none when an assertion named none); never the secret or the assertion.
   */
  | {
      readonly event: 'client.authentication_failed';
      readonly clientId?: string;
      readonly method: ClientAuthenticationMethod;
      readonly reason: ClientAuthenticationFailure;
      readonly address: string;
    }
  | { readonly event: 'key.loaded'; readonly reason: string; readonly keys: number; readonly signingKid: string | undefined }
  | { readonly event: 'key.reload_failed'; readonly reason: string; readonly message: string }
  /** `keys revoke`: a key deleted at once (written by the command, not by a server). */
  | { readonly event: 'key.revoked'; readonly kid: string; readonly replacementKid?: string; readonly operator?: string }
  /** A change through the admin API: the names of the fields written, never their values (src/admin/audit.ts). */
  | {
      readonly event: 'admin.changed';
      readonly actor: AdminActor;
      readonly entity: AdminEntity;
      readonly id: string;
      readonly action: AdminAction;
      readonly fields: readonly string[];
    }
  // Counted, not audited: one of these per request would drown the audit log.
  | { readonly event: 'token.failed'; readonly error: string }
  | { readonly event: 'authorization.failed'; readonly error: string }
  | { readonly event: 'introspection.answered'; readonly active: boolean }
  | { readonly event: 'dpop.proof_failed'; readonly reason: string };

export type SecurityEventName = SecurityEvent['event'];

/** Which events are audit log lines (true) and which are only counted (false); the type makes the table complete. */
export const AUDITED: Readonly<Record<SecurityEventName, boolean>> = {
  'token.issued': true,
  'authorization.approved': true,
  'authorization.denied': true,
  'device.authorization_started': true,
  'device.approved': true,
  'device.denied': true,
  'signin.succeeded': true,
  'signin.failed': true,
  'signin.throttled': true,
  'login.succeeded': true,
  'login.failed': true,
  'token.exchanged': true,
  'assertion.refused': true,
  'workload.refused': true,
  'refresh.reuse_detected': true,
  'code.replayed': true,
  'grant.revoked': true,
  'token.revoked': true,
  'sessions.revoked': true,
  'client.registered': true,
  'client.deleted': true,
  'client.authentication_failed': true,
  'key.loaded': true,
  'key.reload_failed': true,
  'key.revoked': true,
  'admin.changed': true,
  'token.failed': false,
  'authorization.failed': false,
  'introspection.answered': false,
  'dpop.proof_failed': false,
  'device.expired': false,
};

/** Where the domain reports what happened. `emit` never throws and never waits. */
export interface SecurityEvents {
  emit(event: SecurityEvent): void;
}

/** Reports nothing: for code built without consumers (tools, some tests). */
export const NO_EVENTS: SecurityEvents = { emit: () => undefined };

/**
 * Hands every event to each consumer in turn. A consumer that throws is reported to
 * `onConsumerError` and does not stop the others, nor the request that emitted.
 */
export function fanOut(consumers: readonly SecurityEvents[], onConsumerError: (err: unknown) => void = () => undefined): SecurityEvents {
  if (consumers.length === 0) return NO_EVENTS;
  return {
    emit(event) {
      for (const consumer of consumers) {
        try {
          consumer.emit(event);
        } catch (err) {
          onConsumerError(err);
        }
      }
    },
  };
}
