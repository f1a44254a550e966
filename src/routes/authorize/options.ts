import type { AuthorizationResponseDependencies } from '../../authorize/respond.js';
import type { ClientDirectory } from '../../clients/directory.js';
import type { Clock } from '../../clock.js';
import type { Client } from '../../clients/registry.js';
import type { Pages } from '../../pages/view.js';
import type { ProtectedResource } from '../../resources/registry.js';
import type { ResourceLookup } from '../../resources/indicators.js';
import type { BrowserSession } from '../../session/browser-session.js';
import type { Signer } from '../../session/signer.js';
import type { ConsentStore } from '../../store/types.js';
import type { PasswordSignIn } from '../../users/sign-in.js';

/** What the authorization endpoint and its login and consent pages share. */
export interface AuthorizeRouteOptions {
  readonly issuer: string;
  readonly paths: { readonly authorize: string; readonly login: string; readonly consent: string; readonly logout: string };
  /** Every client: the file's, registered ones, metadata documents. */
  readonly clients: ClientDirectory;
  /** The registered resources (RFC 8707), read on every request; their scope descriptions name scopes on the consent page. */
  readonly resources: ResourceLookup & { all(): readonly ProtectedResource[] };
  /** The clients of CLIENTS_FILE: the only ones whose client_uri an error page links to (the operator reviewed them). */
  readonly reviewedClients: { get(clientId: string): Client | undefined };
  /** The layout (BRAND_*) and the texts in each language. */
  readonly pages: Pages;
  /** Password sign-in with the limits shared with the password grant. */
  readonly signIn: PasswordSignIn;
  /** Signs the authorization request carried through the forms. */
  readonly signer: Signer;
  readonly session: BrowserSession;
  /** Issues codes and implicit-flow tokens once the user approves. */
  readonly responses: AuthorizationResponseDependencies;
  /** What each user approved for each client, remembered for `consentTtlSeconds` (CONSENT_TTL; 0: never). */
  readonly consents: ConsentStore;
  readonly consentTtlSeconds: number;
  /** ACCESS_TOKEN_AUDIENCE: the audience of tokens for a request without `resource`, one a consent must cover. */
  readonly defaultAudience: string;
  readonly clock: Clock;
  readonly codeResponseMode: 'query' | 'fragment';
}
