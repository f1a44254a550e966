/** The `grant.revoked` event of src/events/types.ts: why a grant was revoked, and by whom. */

/**
 * Why a grant (its refresh family and the access tokens minted from it) was revoked;
 * `administrator`: `grants revoke`, the admin API or the console; `user`: its user, on /account.
 */
export type GrantRevocationReason = 'revocation_request' | 'code_replay' | 'refresh_reuse' | 'administrator' | 'user';

export type GrantRevokedEvent =
  | {
      readonly event: 'grant.revoked';
      readonly grantId: string;
      readonly clientId: string;
      readonly reason: Exclude<GrantRevocationReason, 'administrator' | 'user'>;
    }
  /** By its user, on the account page: the user is the actor. */
  | {
      readonly event: 'grant.revoked';
      readonly grantId: string;
      readonly clientId: string;
      readonly sub: string;
      readonly reason: 'user';
      readonly actor: { readonly sub: string };
    }
  | {
      /** By an administrator's command; a grant revoked by its id alone has no known client or user. */
      readonly event: 'grant.revoked';
      readonly grantId: string;
      readonly reason: 'administrator';
      readonly clientId?: string;
      readonly sub?: string;
      /** The operating-system account that ran the command, when the system can tell. */
      readonly operator?: string;
    };
