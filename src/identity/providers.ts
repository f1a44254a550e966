import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { parseScope } from '../oauth/scope.js';
import { type EntryNaming, parseEntries, readEntries, Registry } from '../registry/registry.js';

/**
 * The upstream identity providers of IDENTITY_PROVIDERS_FILE: where users sign in instead of
 * (or beside) USERS_FILE. Each is a relying-party relationship of ours: our own client id and
 * secret at the provider, our redirect URI (`{ISSUER}/oauth2/upstream/{id}/callback`), the
 * scope configured here; nothing of a client's request goes upstream. The file holds client
 * secrets, so one that group or others may read is refused.
 */

const PROVIDER_ID = /^[a-z0-9-]{1,64}$/;

const secret = z.string().min(1).max(512);

/** What every authorization request at a provider carries from us: `authorization_params` cannot change it. */
const OWN_PARAMETERS = new Set([
  'client_id',
  'redirect_uri',
  'response_type',
  'response_mode',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'max_age',
  'request',
  'request_uri',
]);

/** An https URL (http passes here; IDENTITY_PROVIDERS_ALLOW_INSECURE decides at the first request) without query or fragment. */
const webUrl = z
  .string()
  .max(2048)
  .refine((value) => URL.canParse(value) && ['https:', 'http:'].includes(new URL(value).protocol), 'must be an https URL')
  .refine((value) => !value.includes('#') && !value.includes('?'), 'must have no query or fragment');

/** A base URL paths are appended to: its trailing slashes go. */
const baseUrl = webUrl.transform((value) => value.replace(/\/+$/, ''));

/** A claim the upstream must carry: one value, or one of a list, in a string or array claim. */
const requiredClaims = z.record(
  z.string().min(1).max(200),
  z.union([z.string().min(1).max(500), z.array(z.string().min(1).max(500)).min(1).max(100)]),
);

const common = {
  id: z.string().regex(PROVIDER_ID, 'must be lowercase letters, digits and -'),
  name: z.string().min(1).max(100),
  client_id: z.string().min(1).max(512),
  client_secret: secret,
  /** Keep the upstream's access and refresh tokens, encrypted, bound to each grant (token exchange hands them out). */
  keep_tokens: z.boolean().default(false),
  /** Sign-out also ends the upstream session (its end_session_endpoint), and comes back. */
  end_session: z.boolean().default(false),
  /** The provider may be on a private network (an internal Keycloak): its addresses are not refused. */
  allow_private_addresses: z.boolean().default(false),
  /**
   * Parameters the operator adds to every authorization request at the provider (Google's
   * `access_type: offline` with `prompt: consent`, Entra's `domain_hint`): the operator's,
   * never a client's. Those we set ourselves are refused; a `prompt` gains `login` when our
   * request asks for a fresh sign-in.
   */
  authorization_params: z
    .record(z.string(), z.string().max(512))
    .refine((params) => Object.keys(params).every((name) => /^[A-Za-z0-9_.-]{1,64}$/.test(name)), {
      message: 'parameter names are 1-64 letters, digits, _ . or -',
    })
    .refine((params) => Object.keys(params).every((name) => !OWN_PARAMETERS.has(name)), {
      message: `must not set ${[...OWN_PARAMETERS].join(', ')}: the server sets them`,
    })
    .optional(),
  /**
   * The roles this provider's users get, each by a required_claims rule on what the provider
   * says at sign-in: `{"admin": {"groups": "oauth-admins"}}` (src/users/roles.ts).
   */
  roles: z.object({ admin: requiredClaims.optional() }).strict().optional(),
  /** Only users with a verified email at one of these domains (case-insensitive) may sign in. */
  allowed_email_domains: z
    .array(z.string().regex(/^[a-z0-9.-]+\.[a-z]{2,}$/i, 'must be a domain name'))
    .max(100)
    .optional(),
};

export const OidcProviderSchema = z
  .object({
    ...common,
    type: z.literal('oidc'),
    /** Exactly as the provider's discovery document says it (a trailing slash included: Auth0's has one). */
    issuer: webUrl,
    scope: z
      .string()
      .default('openid email profile')
      .refine((s) => parseScope(s)?.includes('openid') === true, 'must be space-separated scope tokens including openid'),
    token_endpoint_auth_method: z.enum(['client_secret_basic', 'client_secret_post']).optional(),
    required_claims: requiredClaims.optional(),
    /** Trusted to issue Identity Assertion JWT Authorization Grants (ID-JAG) for its users. */
    id_jag: z.boolean().default(false),
  })
  .strict();

export const GithubProviderSchema = z
  .object({
    ...common,
    type: z.literal('github'),
    base_url: baseUrl.default('https://github.com'),
    api_url: baseUrl.default('https://api.github.com'),
    /** The user must be a member of one of these organizations (needs the read:org scope, asked for then). */
    allowed_organizations: z
      .array(z.string().regex(/^[A-Za-z0-9-]{1,39}$/, 'must be a GitHub organization login'))
      .max(100)
      .optional(),
    scope: z
      .string()
      .optional()
      .refine((s) => s === undefined || parseScope(s) !== undefined, 'must be space-separated scope tokens'),
  })
  .strict();

/** A provider entry: of IDENTITY_PROVIDERS_FILE, of the store, of the admin API (one validation function). */
export const ProviderSchema = z.discriminatedUnion('type', [OidcProviderSchema, GithubProviderSchema], {
  error: 'type must be "oidc" or "github"',
});

/** A replacement through the admin API, whose `client_secret` may be left out (the one kept stays). */
export const ProviderReplacementSchema = z.discriminatedUnion(
  'type',
  [OidcProviderSchema.extend({ client_secret: secret.optional() }), GithubProviderSchema.extend({ client_secret: secret.optional() })],
  { error: 'type must be "oidc" or "github"' },
);

export type OidcProviderConfig = z.output<typeof OidcProviderSchema>;
export type GithubProviderConfig = z.output<typeof GithubProviderSchema>;
export type ProviderConfig = OidcProviderConfig | GithubProviderConfig;

export class ProvidersFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProvidersFileError';
  }
}

/** The URLs of an entry, by field. */
function urlFieldsOf(config: ProviderConfig): [string, string][] {
  return config.type === 'oidc'
    ? [['issuer', config.issuer]]
    : [
        ['base_url', config.base_url],
        ['api_url', config.api_url],
      ];
}

const PROVIDER_ENTRIES: EntryNaming = { member: 'providers', noun: 'provider', keyField: 'id' };

export class ProviderRegistry extends Registry<ProviderConfig> {
  readonly #replaced = new Set<() => void>();

  protected constructor(providers: readonly ProviderConfig[], documents: readonly unknown[] = []) {
    super(providers.map((p, i) => [p.id, p, documents[i]] as const));
  }

  /** Calls `listener` after each change of the entries (a reload of the file, the store's entries); returns how to stop. */
  onReplace(listener: () => void): () => void {
    this.#replaced.add(listener);
    return () => void this.#replaced.delete(listener);
  }

  override replace(next: this): string[] {
    const refused = super.replace(next);
    for (const listener of this.#replaced) listener();
    return refused;
  }

  override replaceStoreEntries(entries: Parameters<Registry<ProviderConfig>['replaceStoreEntries']>[0]): string[] {
    const shadowed = super.replaceStoreEntries(entries);
    for (const listener of this.#replaced) listener();
    return shadowed;
  }

  get(id: string): ProviderConfig | undefined {
    return this.entry(id);
  }

  all(): ProviderConfig[] {
    return this.entries();
  }

  static empty(): ProviderRegistry {
    return new ProviderRegistry([]);
  }

  /**
   * Validates entries; throws ProvidersFileError with one line per problem, naming the
   * provider and the field. http:// URLs only with `allowHttp` (IDENTITY_PROVIDERS_ALLOW_INSECURE).
   */
  static fromEntries(entries: readonly unknown[], source = 'providers', { allowHttp = false } = {}): ProviderRegistry {
    const { parsed, problems } = parseEntries(entries, ProviderSchema, PROVIDER_ENTRIES, source);
    const providers: ProviderConfig[] = [];
    const documents: unknown[] = [];
    for (const { name, value, document } of parsed) {
      const plain = urlFieldsOf(value).filter(([, url]) => url.startsWith('http:'));
      if (providers.some((p) => p.id === value.id)) problems.push(`${source}: ${name}: id: registered twice`);
      else if (!allowHttp && plain.length > 0)
        problems.push(
          ...plain.map(
            ([field]) => `${source}: ${name}: ${field}: must be an https URL (http only with IDENTITY_PROVIDERS_ALLOW_INSECURE=true)`,
          ),
        );
      else {
        providers.push(Object.freeze(value));
        documents.push(document);
      }
    }
    if (problems.length > 0) throw new ProvidersFileError(problems.join('\n'));
    return new ProviderRegistry(providers, documents);
  }

  /** Reads IDENTITY_PROVIDERS_FILE, refusing one that group or others may read (it holds client secrets). */
  static async load(file: string, options: { allowHttp?: boolean } = {}): Promise<ProviderRegistry> {
    const mode = await stat(file).then(
      (s) => s.mode,
      () => undefined,
    );
    if (mode !== undefined && (mode & 0o077) !== 0) {
      throw new ProvidersFileError(
        `${file}: readable by group or others (mode ${(mode & 0o777).toString(8).padStart(4, '0')}), and it holds client secrets: fix it with "chmod 600 ${file}"`,
      );
    }
    return ProviderRegistry.fromEntries(
      await readEntries(file, PROVIDER_ENTRIES, (message) => new ProvidersFileError(message)),
      file,
      options,
    );
  }
}
