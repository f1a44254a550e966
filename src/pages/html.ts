import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/** The small HTML kit of the login, consent, error and form_post pages: escaping and headers (the layout is in layout.ts). */

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Marks a string as already-safe HTML. */
export interface Html {
  readonly html: string;
}

/** Tagged template that escapes every interpolation unless it is Html (or a list of Html). */
export function html(strings: TemplateStringsArray, ...values: ReadonlyArray<string | number | Html | readonly Html[]>): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    if (Array.isArray(value)) out += value.map((v: Html) => v.html).join('');
    else if (typeof value === 'object') out += (value as Html).html;
    else out += escapeHtml(String(value));
    out += strings[i + 1] ?? '';
  });
  return { html: out };
}

/** A whole page and what its Content-Security-Policy must allow (layout.ts builds it). */
export interface Page extends Html {
  /** The hash of the page's one inline style. */
  readonly styleHash: string;
  /** Origins images come from (the operator's and the client's logos). */
  readonly imageOrigins: readonly string[];
  /** Hashes of the inline scripts the page runs. */
  readonly scriptHashes: readonly string[];
  /** Absolute URLs of the script files of this server the page runs (none: undefined or empty). */
  readonly scriptUrls?: readonly string[];
  /** Sent as Referrer-Policy (the layout writes the same in a meta element); default `no-referrer`. */
  readonly referrerPolicy?: ReferrerPolicy;
}

/** The referrer policies of our pages (see PageExtras.referrerPolicy). */
export type ReferrerPolicy = 'no-referrer' | 'same-origin';

/**
 * The CSP source (CSP3 §2.3.1) that lets a form on a page reach `uri` (and be redirected
 * there): its origin for http(s), its scheme for a private-use URI scheme such as
 * `com.example.app:/cb` (RFC 8252 §7.1), whose URL origin is the opaque "null".
 */
export function formTargetOf(uri: string): string {
  const url = new URL(uri);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : url.protocol;
}

export interface PagePolicy {
  /** Where forms on the page may submit (and be redirected): 'self' plus these origins. */
  readonly formTargets?: readonly string[];
}

/**
 * Sends a page with headers that keep it out of frames, caches and Referer headers, and
 * a CSP that allows nothing external but the logos' origins. The text depends on
 * Accept-Language, so caches are told (`Vary`).
 */
export function sendPage(reply: FastifyReply, statusCode: number, content: Page, policy: PagePolicy = {}): FastifyReply {
  const allowed = [...content.scriptHashes, ...(content.scriptUrls ?? [])];
  const scripts = allowed.length ? `script-src ${allowed.join(' ')}` : "script-src 'none'";
  const images = content.imageOrigins.length ? [`img-src ${[...new Set(content.imageOrigins)].join(' ')}`] : [];
  const csp = [
    "default-src 'none'",
    `style-src ${content.styleHash}`,
    scripts,
    ...images,
    `form-action 'self'${(policy.formTargets ?? []).map((o) => ` ${o}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return reply
    .code(statusCode)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', csp)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', content.referrerPolicy ?? 'no-referrer')
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .header('vary', 'Accept-Language')
    .send(content.html);
}

export function scriptHash(script: string): string {
  return `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
}
