import { authorizationCodeGrant } from './authorization-code.js';
import { clientCredentialsGrant } from './client-credentials.js';
import { passwordGrant } from './password.js';
import { refreshTokenGrant } from './refresh-token.js';
import type { Grant } from './types.js';

/** The grant table the token endpoint dispatches through: one module per grant_type. */
export const GRANTS: ReadonlyMap<string, Grant> = new Map(
  [authorizationCodeGrant, clientCredentialsGrant, passwordGrant, refreshTokenGrant].map((grant) => [grant.grantType, grant]),
);
