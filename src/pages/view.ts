import type { BrandConfig } from './brand.js';
import type { Html, Page } from './html.js';
import { negotiateLanguage } from './language.js';
import { type PageExtras, Layout } from './layout.js';
import { CATALOGUE, DEFAULT_LANGUAGE, type Messages } from './messages/index.js';

/** One request's way of writing a page: the texts in its language, and the operator's layout. */
export interface PageView {
  readonly t: Messages;
  render(title: string, body: Html, extras?: PageExtras): Page;
}

const LANGUAGES = [...CATALOGUE.keys()];

/** The pages of one server: its layout (BRAND_*) and a view per language of the catalogue. */
export class Pages {
  private readonly views: ReadonlyMap<string, PageView>;

  constructor(brand: BrandConfig) {
    const layout = new Layout(brand);
    this.views = new Map(
      [...CATALOGUE].map(([language, t]) => [language, { t, render: (title, body, extras) => layout.render(t, title, body, extras) }]),
    );
  }

  /** The view in the language Accept-Language prefers among those of the catalogue. */
  viewFor(acceptLanguage: string | undefined): PageView {
    return this.views.get(negotiateLanguage(acceptLanguage, LANGUAGES, DEFAULT_LANGUAGE)) as PageView;
  }
}
