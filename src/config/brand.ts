import { z } from 'zod';
import { isHttpsOrLocalUrl } from '../oauth/urls.js';
import type { BrandConfig } from '../pages/brand.js';

/**
 * The variables that brand the login, consent and error pages, parsed by src/config.ts
 * with the others (it stays the only reader of process.env).
 */

const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** `#abc` becomes `#aabbcc`, in lowercase: the one form the pages and the contrast check read. */
function longHex(value: string): string {
  const digits = value.slice(1).toLowerCase();
  return `#${digits.length === 3 ? [...digits].map((d) => d + d).join('') : digits}`;
}

export const DEFAULT_PRIMARY_COLOR = '#0b57d0';

export const BRAND_FIELDS = {
  BRAND_NAME: z
    .string()
    .max(100, 'BRAND_NAME must be at most 100 characters')
    .refine((value) => !/\p{Cc}/u.test(value), 'BRAND_NAME must not contain control characters')
    .optional(),
  BRAND_LOGO_URL: z
    .string()
    .max(2048, 'BRAND_LOGO_URL must be at most 2048 characters')
    .refine(isHttpsOrLocalUrl, 'BRAND_LOGO_URL must be an absolute https URL (http only on localhost, for development)')
    .optional(),
  BRAND_PRIMARY_COLOR: z
    .string()
    .regex(HEX_COLOR, 'BRAND_PRIMARY_COLOR must be a hex color: #rgb or #rrggbb')
    .transform(longHex)
    .default(DEFAULT_PRIMARY_COLOR),
};

type BrandVariables = z.output<z.ZodObject<typeof BRAND_FIELDS>>;

/** What the pages show of the operator. */

export function brandConfig(e: BrandVariables): BrandConfig {
  return Object.freeze({ name: e.BRAND_NAME, logoUrl: e.BRAND_LOGO_URL, primaryColor: e.BRAND_PRIMARY_COLOR });
}
