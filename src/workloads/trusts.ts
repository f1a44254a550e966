import type { JWK } from 'jose';
import { z } from 'zod';
import { clientJwksProblem } from '../clients/client-jwks.js';
import { parseScope } from '../oauth/scope.js';
import { type EntryNaming, type HeldEntry, parseEntries, readEntries, Registry } from '../registry/registry.js';

/**
 * The workload trusts of WORKLOAD_TRUSTS_FILE (MCP Workload Identity Federation, RFC 7523
 * §2.1): which issuers' JWTs a workload may trade for an access token here, where their keys
 * are, and which workloads of each (by `sub` and claims) get a token for which resources and
 * scope. One schema validates every entry, wherever it comes from (the file; later the admin
 * API). The file holds no secret (public keys at most).
 */

const TRUST_ID = /^[a-z0-9-]{1,64}$/;

/** A value a rule's claim must have: a string, number or boolean; an object names members the claim's object must have. */
export type ClaimValue = string | number | boolean | { readonly [member: string]: ClaimValue };

const claimName = z.string().min(1).max(200);
const claimValue: z.ZodType<ClaimValue> = z.lazy(() =>
  z.union([z.string().max(1000), z.number(), z.boolean(), z.record(claimName, claimValue)]),
);

const absoluteUri = (what: string) =>
  z
    .string()
    .min(1)
    .max(2048)
    .refine((value) => /^[A-Za-z][A-Za-z0-9+.-]*:/.test(value) && URL.canParse(value) && !value.includes('#'), {
      message: `must be an absolute URI without fragment (${what})`,
    });

const isWebUrl = (value: string) => URL.canParse(value) && ['https:', 'http:'].includes(new URL(value).protocol);

/** An https URL (http passes here; WORKLOAD_TRUSTS_ALLOW_INSECURE decides in fromEntries) without fragment. */
const webUrl = z
  .string()
  .max(2048)
  .refine((value) => isWebUrl(value) && !value.includes('#'), 'must be an https URL without fragment');

const RuleSchema = z
  .object({
    /** The workload's `sub` exactly, or its beginning with a trailing `*`. */
    sub: z
      .string()
      .min(1)
      .max(1000)
      .refine((s) => !s.slice(0, -1).includes('*'), 'may end with * (any rest) and has no other *')
      .optional(),
    /** Every claim named must be in the JWT with this value (an object: with these members). */
    claims: z
      .record(claimName, claimValue)
      .refine((claims) => Object.keys(claims).length > 0, 'must name at least one claim')
      .optional(),
    /** The resources (RFC 8707) a matching workload may ask a token for; each must be in RESOURCES_FILE when it asks. */
    resources: z.array(absoluteUri('a resource indicator')).min(1).max(100),
    scope: z.string().refine((s) => parseScope(s) !== undefined, 'must be space-separated scope tokens (RFC 6749 §3.3)'),
  })
  .strict()
  .refine((rule) => rule.sub !== undefined || rule.claims !== undefined, {
    message: 'a rule needs sub or claims: which workloads of the issuer it admits',
  });

/**
 * The signing keys of an inline JWK Set. A SPIFFE bundle (SPIFFE Trust Domain and Bundle
 * §4.2.2) marks its JWT-SVID authorities `"use": "jwt-svid"` and its X.509 ones
 * `"x509-svid"`: the former sign, the latter never sign a JWT.
 */
export function signingKeysOf(jwks: unknown): { keys: JWK[] } {
  const keys = (jwks as { keys: JWK[] }).keys;
  return { keys: keys.filter((key) => key.use !== 'x509-svid').map((key) => (key.use === 'jwt-svid' ? { ...key, use: 'sig' } : key)) };
}

export const WorkloadTrustSchema = z
  .object({
    id: z.string().regex(TRUST_ID, 'must be lowercase letters, digits and -'),
    /** The JWTs' `iss`, exactly (an https URL, or any absolute URI such as a SPIFFE trust domain with jwks or jwks_uri). */
    issuer: absoluteUri('the JWTs’ iss'),
    /** The one `aud` accepted; default: our issuer identifier or our token endpoint URL. */
    audience: z.string().min(1).max(2048).optional(),
    /** The issuer's public keys inline (a JWK Set; a SPIFFE bundle's jwt-svid keys count as signing keys). */
    jwks: z
      .unknown()
      .superRefine((value, ctx) => {
        const problem = clientJwksProblem(value) ?? (signingKeysOf(value).keys.length === 0 ? 'has no signing key' : undefined);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
    jwks_uri: webUrl.optional(),
    /** Refuse a JWT without `jti` (one with a jti is always taken once only). */
    require_jti: z.boolean().default(false),
    /** The issuer's discovery and keys may be on a private network (the cluster's API server). */
    allow_private_addresses: z.boolean().default(false),
    /** The first rule that matches the workload decides. */
    rules: z.array(RuleSchema).min(1).max(100),
  })
  .strict()
  .superRefine((trust, ctx) => {
    if (trust.jwks !== undefined && trust.jwks_uri !== undefined)
      ctx.addIssue({ code: 'custom', path: ['jwks'], message: 'either jwks or jwks_uri, not both' });
    if (trust.jwks === undefined && trust.jwks_uri === undefined && URL.canParse(trust.issuer) && !isWebUrl(trust.issuer))
      ctx.addIssue({
        code: 'custom',
        path: ['issuer'],
        message: "without jwks or jwks_uri the keys come from the issuer's OpenID discovery: it must be an https URL",
      });
  });

export type WorkloadTrust = Readonly<z.output<typeof WorkloadTrustSchema>>;
export type WorkloadRule = WorkloadTrust['rules'][number];

export class WorkloadTrustsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkloadTrustsFileError';
  }
}

/** Where an entry's keys come from: the file, a URL, or the issuer's discovery document. */
export function discoveryUrlOf(trust: WorkloadTrust): string | undefined {
  if (trust.jwks !== undefined || trust.jwks_uri !== undefined) return undefined;
  // OpenID Connect Discovery §4: "/.well-known/openid-configuration" appended to the issuer, its trailing "/" removed.
  return `${trust.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
}

/** The URLs of an entry the server fetches, by field. */
function fetchedUrlsOf(trust: WorkloadTrust): [string, string][] {
  const discovery = discoveryUrlOf(trust);
  if (discovery !== undefined) return [['issuer', discovery]];
  return trust.jwks_uri !== undefined ? [['jwks_uri', trust.jwks_uri]] : [];
}

const TRUST_ENTRIES: EntryNaming = { member: 'trusts', noun: 'trust', keyField: 'id' };

export class WorkloadTrustRegistry extends Registry<WorkloadTrust> {
  /** Trusts by issuer, derived from the entries served (the file's and the store's) when they change. */
  #index: { readonly of: ReadonlyMap<string, HeldEntry<WorkloadTrust>>; readonly byIssuer: ReadonlyMap<string, WorkloadTrust> } | undefined;

  protected constructor(trusts: readonly WorkloadTrust[], documents: readonly unknown[] = []) {
    super(trusts.map((trust, i) => [trust.id, trust, documents[i]] as const));
  }

  /** One trust per issuer, whichever source it comes from: the issuer finds the trust. */
  protected override claimsOf(key: string, trust: WorkloadTrust): readonly string[] {
    return [key, `issuer ${trust.issuer}`];
  }

  get(id: string): WorkloadTrust | undefined {
    return this.entry(id);
  }

  /** The trust whose issuer is exactly `iss`. */
  byIssuer(iss: string): WorkloadTrust | undefined {
    const entries = this.current;
    if (this.#index?.of !== entries)
      this.#index = { of: entries, byIssuer: new Map([...entries.values()].map((held) => [held.value.issuer, held.value])) };
    return this.#index.byIssuer.get(iss);
  }

  all(): WorkloadTrust[] {
    return this.entries();
  }

  static empty(): WorkloadTrustRegistry {
    return new WorkloadTrustRegistry([]);
  }

  /**
   * Validates entries; throws WorkloadTrustsFileError with one line per problem, naming the
   * trust and the field. An issuer trusted twice is refused (the issuer finds the trust);
   * http:// only with `allowHttp` (WORKLOAD_TRUSTS_ALLOW_INSECURE).
   */
  static fromEntries(entries: readonly unknown[], source = 'trusts', { allowHttp = false } = {}): WorkloadTrustRegistry {
    const { parsed, problems } = parseEntries(entries, WorkloadTrustSchema, TRUST_ENTRIES, source);
    const trusts: WorkloadTrust[] = [];
    const documents: unknown[] = [];
    for (const { name, value, document } of parsed) {
      const plain = fetchedUrlsOf(value).filter(([, url]) => url.startsWith('http:'));
      const twin = trusts.find((t) => t.issuer === value.issuer);
      if (trusts.some((t) => t.id === value.id)) problems.push(`${source}: ${name}: id: registered twice`);
      else if (twin) problems.push(`${source}: ${name}: issuer: already trusted by trust "${twin.id}"`);
      else if (!allowHttp && plain.length > 0)
        problems.push(
          ...plain.map(
            ([field]) => `${source}: ${name}: ${field}: must be an https URL (http only with WORKLOAD_TRUSTS_ALLOW_INSECURE=true)`,
          ),
        );
      else {
        trusts.push(Object.freeze(value));
        documents.push(document);
      }
    }
    if (problems.length > 0) throw new WorkloadTrustsFileError(problems.join('\n'));
    return new WorkloadTrustRegistry(trusts, documents);
  }

  static async load(file: string, options: { allowHttp?: boolean } = {}): Promise<WorkloadTrustRegistry> {
    const entries = await readEntries(file, TRUST_ENTRIES, (message) => new WorkloadTrustsFileError(message));
    return WorkloadTrustRegistry.fromEntries(entries, file, options);
  }
}
