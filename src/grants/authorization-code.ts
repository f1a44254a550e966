import { InvalidGrant } from '../errors/index.js';
import type { SecurityEvents } from '../events/types.js';
import { codeVerifierMatches, isWellFormedCodeVerifier } from '../oauth/pkce.js';
import type { AccessTarget, ResourceLookup } from '../resources/indicators.js';
import type { RoleHolders } from '../users/roles.js';
import { heldTarget } from './held-target.js';
import type { AuthorizationCodeRecord, AuthorizationCodeStore, GrantRevocation } from '../store/types.js';
import type { AccessTokens } from '../tokens/access-token.js';
import { refOf } from '../tokens/opaque.js';
import { familyKeyBinding, type RefreshFamilies } from './refresh-family.js';
import type { FormParams } from '../oauth/form-params.js';
import { idTokenFor, isAuthentication } from './identity.js';
import { type Grant, issuedEvent, targetRequest, tokenResponse } from './types.js';
import type { IdTokens } from '../oidc/id-token.js';
import type { SubjectChecks } from '../users/subject-status.js';
import { USER_DISABLED } from './refresh-rotation.js';

export interface AuthorizationCodeGrantDependencies {
  readonly codes: AuthorizationCodeStore;
  readonly grants: GrantRevocation;
  readonly refreshFamilies: RefreshFamilies;
  readonly accessTokens: AccessTokens;
  readonly idTokens: IdTokens;
  readonly resources: ResourceLookup;
  /** Whose roles are read now (USERS_FILE): the admin scopes only while the user holds `admin`. */
  readonly users: RoleHolders;
  /** How long the revocation mark of a replayed code's grant is kept: the longest a refresh family lives. */
  readonly revocationMarkSeconds: number;
  readonly events: SecurityEvents;
  /** A code of a user disabled since it was issued is refused (in memory). */
  readonly subjects: SubjectChecks;
}

const INVALID_CODE = 'the authorization code is invalid, expired, or was issued to another client';

/** RFC 6749 §4.1.3: redeem an authorization code, once. */
export function authorizationCodeGrant(deps: AuthorizationCodeGrantDependencies): Grant {
  return {
    grantType: 'authorization_code',
    async handle({ client, params, dpop }) {
      const code = params.require('code');
      const ref = refOf(code);
      if (!ref) throw new InvalidGrant(INVALID_CODE);

      // The client gets a refresh token: its family starts in the same step as the code is consumed.
      const draft = client.grantTypes.has('refresh_token') ? await deps.refreshFamilies.draftFirstToken(ref.grantId) : undefined;
      const outcome = await deps.codes.redeemAuthorizationCode(ref, {
        revocationMarkSeconds: deps.revocationMarkSeconds,
        firstRefreshToken: draft?.store,
      });
      if (outcome.status === 'not_found') throw new InvalidGrant(INVALID_CODE);
      if (outcome.status === 'replayed') {
        // §4.1.2: "If an authorization code is used more than once, the authorization
        // server MUST deny the request and SHOULD revoke (when possible) all tokens
        // previously issued based on that authorization code." The store revoked the grant
        // in the same step as it found the replay.
        const clientId = outcome.record.clientId;
        deps.events.emit({ event: 'code.replayed', clientId, grantId: ref.grantId });
        deps.events.emit({ event: 'grant.revoked', grantId: ref.grantId, clientId, reason: 'code_replay' });
        throw new InvalidGrant('the authorization code was already used; the tokens issued from it are revoked');
      }
      const record = outcome.record;
      let target: AccessTarget;
      try {
        target = checkedTarget(record, client.clientId, params, dpop?.jkt, deps);
        if (deps.subjects.isDisabled(record.sub)) throw new InvalidGrant(USER_DISABLED);
      } catch (err) {
        // The family's first token was never handed out: nothing may use the family.
        if (outcome.familyStarted) await deps.grants.revokeGrant(ref.grantId, deps.revocationMarkSeconds);
        throw err;
      }
      const { resources, scope } = target;
      // Only a replayed code (or a grant revoked by its administrator) revokes a grant before its family starts: issue nothing.
      if (draft && !outcome.familyStarted) {
        throw new InvalidGrant('the authorization code was already used; the tokens issued from it are revoked');
      }
      // The refresh family keeps the whole grant, even when this token request narrowed it.
      const refreshToken = draft?.sealer.seal(draft.head, {
        clientId: record.clientId,
        sub: record.sub,
        scope: record.scope,
        resources: record.resources ?? [],
        authTime: record.authTime,
        ...(record.sid !== undefined ? { sid: record.sid } : {}),
        ...(record.amr !== undefined ? { amr: record.amr } : {}),
        ...familyKeyBinding(client, dpop),
      });
      const issued = await deps.accessTokens.issue({
        subject: record.sub,
        clientId: client.clientId,
        scope,
        authTime: record.authTime,
        grantId: ref.grantId,
        resources,
        jkt: dpop?.jkt,
      });
      deps.events.emit(
        issuedEvent(
          'authorization_code',
          client.clientId,
          record.sub,
          issued,
          { scope, resources },
          ref.grantId,
          refreshToken !== undefined,
        ),
      );
      const idToken = isAuthentication(record.scope) ? await idTokenFor(deps.idTokens, client, record, issued.token) : undefined;
      return tokenResponse(issued, scope, refreshToken, idToken);
    },
  };
}

/** The checks of a redeemed code against the token request, and the target it grants (the code is consumed by then). */
function checkedTarget(
  record: AuthorizationCodeRecord,
  clientId: string,
  params: FormParams,
  dpopJkt: string | undefined,
  deps: { readonly resources: ResourceLookup; readonly users: RoleHolders },
): AccessTarget {
  // §4.1.3: "ensure that the authorization code was issued to the authenticated
  // confidential client, or if the client is public, ensure that the code was issued
  // to "client_id" in the request".
  if (record.clientId !== clientId) throw new InvalidGrant(INVALID_CODE);
  checkRedirectUri(record, params.get('redirect_uri'));
  checkCodeVerifier(record, params.get('code_verifier'));
  // RFC 9449 §10: "the authorization server computes the JWK thumbprint of the proof key in
  // the DPoP proof and verifies that it matches the dpop_jkt value in the authorization
  // request. If they do not match, it MUST reject the request."
  if (record.dpopJkt !== undefined && record.dpopJkt !== dpopJkt) {
    throw new InvalidGrant('the authorization code is bound to a DPoP key (dpop_jkt): send a DPoP proof made with that key');
  }
  return heldTarget(targetRequest(params), record, deps);
}

/**
 * §4.1.3: "ensure that the "redirect_uri" parameter is present if the "redirect_uri"
 * parameter was included in the initial authorization request [...], and if included
 * ensure that their values are identical."
 */
function checkRedirectUri(record: AuthorizationCodeRecord, redirectUri: string | undefined): void {
  if (record.redirectUriSent && redirectUri === undefined)
    throw new InvalidGrant('redirect_uri is required: the authorization request carried one');
  if (redirectUri !== undefined && redirectUri !== record.redirectUri)
    throw new InvalidGrant('redirect_uri does not match the authorization request');
}

/** RFC 7636 §4.6; and a verifier for a code issued without a challenge is a downgrade attempt. */
function checkCodeVerifier(record: AuthorizationCodeRecord, verifier: string | undefined): void {
  if (record.codeChallenge === undefined) {
    if (verifier !== undefined) throw new InvalidGrant('code_verifier sent, but the authorization request had no code_challenge');
    return;
  }
  if (verifier === undefined) throw new InvalidGrant('code_verifier is required: the authorization request had a code_challenge');
  if (!isWellFormedCodeVerifier(verifier) || !codeVerifierMatches(verifier, record.codeChallenge)) {
    throw new InvalidGrant('code_verifier does not match the code_challenge');
  }
}
