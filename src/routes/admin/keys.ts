import { z } from 'zod';
import { keyChains } from '../../admin/keys.js';
import { adminRoute, type AdminRoute } from '../../admin/routes.js';
import { type Clock, nowSeconds } from '../../clock.js';
import type { Keystore } from '../../keys/keystore.js';

/** `GET /admin/v1/keys`: each signing key chain, its keys and their state; read-only (keys are the rotation command's). */

const KeySchema = z
  .object({
    kid: z.string(),
    alg: z.string(),
    state: z.enum(['scheduled', 'signing', 'retiring', 'expired']),
    published: z.boolean().describe('In the JWKS now'),
    created_at: z.number().int(),
    signs_from: z.number().int(),
    signs_until: z.number().int().optional(),
    publish_until: z.number().int().optional(),
  })
  .strict();

const ChainSchema = z
  .object({
    alg: z.string(),
    signs_access_tokens: z.boolean().describe('The chain of ACCESS_TOKEN_SIGNING_ALG; the others sign ID tokens'),
    keys: z.array(KeySchema),
  })
  .strict();

export function keyRoutes(deps: { readonly keystore: Keystore; readonly clock: Clock }): AdminRoute[] {
  return [
    adminRoute({
      method: 'GET',
      path: '/keys',
      operationId: 'listKeys',
      summary: 'The signing key chains, their keys and where each stands now (times in seconds since the epoch)',
      tag: 'keys',
      responses: { 200: { description: 'Every chain', schema: z.object({ items: z.array(ChainSchema) }).strict() } },
      handle: async () => ({ status: 200, body: { items: keyChains(deps.keystore, nowSeconds(deps.clock)) } }),
    }),
  ];
}
