import { z } from 'zod';
import { flag } from './fields.js';

/**
 * The variables of sign-in through upstream identity providers and of workload identity
 * federation, parsed with the others (src/config/index.ts stays the only reader of process.env).
 */

export const IDENTITY_FIELDS = {
  /** The providers (JSON, {"providers": [...]}); it holds client secrets, so it must not be group- or world-readable. */
  IDENTITY_PROVIDERS_FILE: z.string().min(1).optional(),
  /** http:// providers and providers on loopback or private addresses (development and tests only; warns at start). */
  IDENTITY_PROVIDERS_ALLOW_INSECURE: flag('IDENTITY_PROVIDERS_ALLOW_INSECURE'),
  /** The key material of the upstream tokens kept in the store (keep_tokens); default: derived from SESSION_SECRET. */
  UPSTREAM_TOKEN_SECRET: z.string().min(32, 'UPSTREAM_TOKEN_SECRET must be at least 32 characters').optional(),
  /** The issuers whose workloads may trade their JWTs for tokens (JSON, {"trusts": [...]}; docs/workload-identity.md). */
  WORKLOAD_TRUSTS_FILE: z.string().min(1).optional(),
  /** http:// issuers and keys, and loopback or private addresses (development and tests only; warns at start). */
  WORKLOAD_TRUSTS_ALLOW_INSECURE: flag('WORKLOAD_TRUSTS_ALLOW_INSECURE'),
};

type IdentityVariables = z.output<z.ZodObject<typeof IDENTITY_FIELDS>>;

export interface IdentityConfig {
  readonly identityProviders: {
    readonly file: string | undefined;
    readonly allowInsecure: boolean;
    readonly upstreamTokenSecret: string | undefined;
  };
  /** Workload identity federation (src/workloads/): WORKLOAD_TRUSTS_FILE, WORKLOAD_TRUSTS_ALLOW_INSECURE. */
  readonly workloadTrusts: {
    readonly file: string | undefined;
    readonly allowInsecure: boolean;
  };
}

export function identityConfig(e: IdentityVariables): IdentityConfig {
  return {
    identityProviders: Object.freeze({
      file: e.IDENTITY_PROVIDERS_FILE,
      allowInsecure: e.IDENTITY_PROVIDERS_ALLOW_INSECURE,
      upstreamTokenSecret: e.UPSTREAM_TOKEN_SECRET,
    }),
    workloadTrusts: Object.freeze({ file: e.WORKLOAD_TRUSTS_FILE, allowInsecure: e.WORKLOAD_TRUSTS_ALLOW_INSECURE }),
  };
}
