import { z } from 'zod';

/**
 * What a client of CLIENTS_FILE may exchange (RFC 8693, src/grants/token-exchange.ts): the
 * tokens sent to it (their `aud` among `subject_audiences`), for tokens of the
 * `target_resources` (registered resources), or for the signed-in user's token at the
 * `upstream_providers` (kept with `keep_tokens`). Only the operator grants this: a client that
 * registers itself, or a metadata document, cannot.
 */

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** RFC 7523 §2.1: the JWT bearer grant, for Identity Assertion JWT Authorization Grants. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** Grant types only CLIENTS_FILE may give a client: a document listing them has them left out. */
export const OPERATOR_ONLY_GRANT_TYPES: readonly string[] = [TOKEN_EXCHANGE_GRANT, JWT_BEARER_GRANT];

const uris = z
  .array(
    z
      .string()
      .min(1)
      .max(2048)
      .refine((value) => URL.canParse(value), 'must be an absolute URI'),
  )
  .max(100);

export const TokenExchangePolicySchema = z
  .object({
    subject_audiences: uris.min(1),
    target_resources: uris.default([]),
    upstream_providers: z
      .array(z.string().regex(/^[a-z0-9-]{1,64}$/, 'must be a provider id'))
      .max(100)
      .default([]),
  })
  .strict()
  .refine((p) => p.target_resources.length > 0 || p.upstream_providers.length > 0, {
    message: 'name target_resources or upstream_providers: something to exchange for',
  });

export interface TokenExchangePolicy {
  readonly subjectAudiences: readonly string[];
  readonly targetResources: readonly string[];
  readonly upstreamProviders: readonly string[];
}

export function tokenExchangePolicyOf(p: z.output<typeof TokenExchangePolicySchema>): TokenExchangePolicy {
  return Object.freeze({
    subjectAudiences: Object.freeze([...p.subject_audiences]),
    targetResources: Object.freeze([...p.target_resources]),
    upstreamProviders: Object.freeze([...p.upstream_providers]),
  });
}
