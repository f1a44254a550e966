import type { AuthorizeDependencies } from '../../authorize/pipeline.js';
import type { ClientDirectory } from '../../clients/directory.js';
import type { Client } from '../../clients/registry.js';
import type { Pages } from '../../pages/view.js';
import type { ProtectedResource } from '../../resources/registry.js';

/** What the authorization endpoint, its login and consent pages and sign-out share. */
export interface AuthorizeRouteOptions {
  readonly issuer: string;
  readonly paths: {
    readonly authorize: string;
    readonly login: string;
    readonly consent: string;
    readonly logout: string;
    /** Where the login page's provider buttons post. */
    readonly upstream: string;
    /** The callback of an upstream provider, with `:provider` for its id (`/oauth2/upstream/:provider/callback`). */
    readonly upstreamCallback: string;
    /** Where an upstream provider's sign-out comes back, with `:provider`. */
    readonly upstreamSignedOut: string;
    /** RFC 8628 §3.3: the verification URI, where the user types a device's code. */
    readonly device: string;
    /** The account page, which the login and consent pages link to. */
    readonly account: string;
  };
  /** The services of the authorization request's pipeline (src/authorize/pipeline.ts). */
  readonly pipeline: AuthorizeDependencies;
  /** Every client: the file's, registered ones, metadata documents (sign-out names them too). */
  readonly clients: ClientDirectory;
  /** The registered resources (RFC 8707), read on every request; their scope descriptions name scopes on the consent page. */
  readonly resources: { all(): readonly ProtectedResource[] };
  /** The clients of CLIENTS_FILE: the only ones whose client_uri an error page links to (the operator reviewed them). */
  readonly reviewedClients: { get(clientId: string): Client | undefined };
  /** The layout (BRAND_*) and the texts in each language. */
  readonly pages: Pages;
}
