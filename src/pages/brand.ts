/** What the pages show of the operator (BRAND_* variables, src/config/brand.ts). */
export interface BrandConfig {
  /** BRAND_NAME: shown above every page and in its title; undefined: no name. */
  readonly name: string | undefined;
  /** BRAND_LOGO_URL: the operator's logo; its origin is allowed by the pages' CSP (img-src). */
  readonly logoUrl: string | undefined;
  /** BRAND_PRIMARY_COLOR as #rrggbb: the primary button and the accent line. */
  readonly primaryColor: string;
}
