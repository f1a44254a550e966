import { createHash } from 'node:crypto';
import type { BrandConfig } from './brand.js';
import { textColorOn } from './contrast.js';
import { type Html, html, type Page } from './html.js';
import type { Messages } from './messages/index.js';
import { CONSOLE_STYLE } from './console-style.js';
import type { ReferrerPolicy } from './html.js';

/**
 * The one layout of every page: the operator's name and logo above a card, the brand
 * colour on the primary button (its text colour chosen for contrast), light and dark
 * schemes, a visible focus ring. Built once per server from BRAND_*.
 */

function styleFor(brand: BrandConfig): string {
  return `
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--bg:#f6f8fa;--card:#fff;--line:#d0d7de;--field:#6e7781;--danger:#b42318;--brand:${brand.primaryColor};--on-brand:${textColorOn(brand.primaryColor)}}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--card:#161b22;--line:#30363d;--field:#6e7681;--danger:#ff7b72}}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;min-height:100vh;display:flex;flex-direction:column;align-items:center;justify-content:center;gap:1rem;padding:1rem;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.brand{display:flex;align-items:center;gap:.6rem;font-weight:700;font-size:1.1rem}
.brand img{height:2.25rem;width:auto;max-width:12rem;object-fit:contain}
main{width:100%;max-width:26rem;background:var(--card);border:1px solid var(--line);border-top:4px solid var(--brand);border-radius:12px;padding:1.5rem}
h1{font-size:1.35rem;margin:0 0 .25rem}
p{margin:.5rem 0}
a{color:inherit;text-decoration:underline;text-underline-offset:2px}
.muted{color:var(--muted);font-size:.925rem}
.error{color:var(--danger);border:1px solid var(--danger);border-radius:8px;padding:.5rem .75rem}
.notice{border:1px solid var(--line);border-radius:8px;padding:.5rem .75rem}
.host{font-size:1.15rem}
.client{display:flex;align-items:center;gap:.75rem}
.client img{width:3rem;height:3rem;object-fit:contain;border-radius:8px;flex:none}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
.reveal{display:flex;align-items:center;gap:.5rem;margin-top:.5rem}
.reveal label{margin:0;font-weight:400}
.reveal input{width:1.1rem;height:1.1rem;margin:0}
input[type=text],input[type=password]{width:100%;font:inherit;padding:.6rem .7rem;border:1px solid var(--field);border-radius:8px;background:transparent;color:inherit}
input.code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:1.35rem;letter-spacing:.15em;text-transform:uppercase}
:focus-visible{outline:3px solid var(--fg);outline-offset:2px}
ul{padding-left:1.25rem}
li{margin:.25rem 0}
code{font-size:.9em}
dl{display:grid;grid-template-columns:auto 1fr;gap:.1rem .75rem;margin:.75rem 0}
dt{color:var(--muted)}
dd{margin:0;overflow-wrap:anywhere}
.actions{display:flex;gap:.75rem;margin-top:1.25rem}
.providers{display:flex;flex-direction:column;gap:.75rem;margin-top:1.25rem}
.or{display:flex;align-items:center;gap:.75rem;color:var(--muted);margin:1.25rem 0 0}
.or::before,.or::after{content:"";flex:1;border-top:1px solid var(--line)}
button{flex:1;font:inherit;font-weight:600;padding:.65rem 1rem;border-radius:8px;border:1px solid var(--field);background:transparent;color:inherit;cursor:pointer}
button.link{flex:none;padding:0;border:0;background:none;color:inherit;font-weight:400;text-decoration:underline}
button.primary{background:var(--brand);border-color:var(--brand);color:var(--on-brand)}
${CONSOLE_STYLE}`;
}

/** What a page needs beyond its body: the images it shows and the scripts it runs. */
export interface PageExtras {
  /** URLs of images on the page (their origins go into img-src). */
  readonly images?: readonly string[];
  /** Inline scripts placed at the end of the body (their hashes go into script-src). */
  readonly scripts?: readonly { readonly source: string; readonly hash: string }[];
  /**
   * Script files of this server placed at the end of the body, deferred: `src` (a path) and
   * `url` (absolute), the exact URL script-src then allows (CSP3 §2.3.1: a path that does not
   * end in `/` matches that file alone).
   */
  readonly scriptFiles?: readonly { readonly src: string; readonly url: string }[];
  /** A page of lists and tables (the console, the account page): the card spans the width it needs. */
  readonly wide?: boolean;
  /**
   * `same-origin` for pages whose forms change something (the console, /account): the browser
   * then sends their Origin with each POST, which the server checks (with `no-referrer`, the
   * default, a POST says `Origin: null`). Nothing goes to another origin either way.
   */
  readonly referrerPolicy?: ReferrerPolicy;
}

function originOf(url: string): string {
  return new URL(url).origin;
}

export class Layout {
  private readonly style: string;
  private readonly styleHash: string;

  constructor(private readonly brand: BrandConfig) {
    this.style = styleFor(brand);
    this.styleHash = `'sha256-${createHash('sha256').update(this.style).digest('base64')}'`;
  }

  private header(t: Messages): Html {
    const { name, logoUrl } = this.brand;
    if (name === undefined && logoUrl === undefined) return html``;
    // With a name beside it the logo is decoration (empty alt); alone, it names the operator.
    const logo = logoUrl === undefined ? html`` : html`<img src="${logoUrl}" alt="${name === undefined ? t.logoAlt : ''}">`;
    return html`<header class="brand">${logo}${name === undefined ? html`` : html`<span>${name}</span>`}</header>\n`;
  }

  render(t: Messages, title: string, body: Html, extras: PageExtras = {}): Page {
    const scripts = extras.scripts ?? [];
    const files = extras.scriptFiles ?? [];
    const images = [...(this.brand.logoUrl === undefined ? [] : [this.brand.logoUrl]), ...(extras.images ?? [])];
    const fullTitle = this.brand.name === undefined ? title : `${title} – ${this.brand.name}`;
    const referrerPolicy = extras.referrerPolicy ?? 'no-referrer';
    const document = html`<!doctype html>
<html lang="${t.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="${referrerPolicy}">
<title>${fullTitle}</title>
<style>${{ html: this.style }}</style>
</head>
<body>
${this.header(t)}<main${extras.wide ? html` class="wide"` : html``}>
${body}
</main>
${scripts.map((s) => html`<script>${{ html: s.source }}</script>\n`)}${files.map((f) => html`<script src="${f.src}" defer></script>\n`)}</body>
</html>
`;
    return {
      html: document.html,
      styleHash: this.styleHash,
      imageOrigins: images.map(originOf),
      scriptHashes: scripts.map((s) => s.hash),
      scriptUrls: files.map((f) => f.url),
      referrerPolicy,
    };
  }
}
