import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/** The small HTML kit of the login, consent, error and form_post pages: escaping, layout, headers. */

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

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--bg:#f6f8fa;--card:#fff;--line:#d0d7de;--accent:#0b57d0;--danger:#b42318}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--card:#161b22;--line:#30363d;--accent:#4c8dff;--danger:#ff7b72}}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:grid;place-items:center;padding:1rem;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{width:100%;max-width:24rem;background:var(--card);border:1px solid var(--line);border-radius:12px;padding:1.5rem}
h1{font-size:1.35rem;margin:0 0 .25rem}
p{margin:.5rem 0}
.muted{color:var(--muted);font-size:.925rem}
.error{color:var(--danger);border:1px solid var(--danger);border-radius:8px;padding:.5rem .75rem}
.notice{border:1px solid var(--line);border-radius:8px;padding:.5rem .75rem}
.host{font-size:1.15rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=text],input[type=password]{width:100%;font:inherit;padding:.6rem .7rem;border:1px solid var(--line);border-radius:8px;background:transparent;color:inherit}
input:focus,button:focus{outline:2px solid var(--accent);outline-offset:2px}
ul{padding-left:1.25rem}
code{font-size:.9em}
.actions{display:flex;gap:.75rem;margin-top:1.25rem}
button{flex:1;font:inherit;font-weight:600;padding:.65rem 1rem;border-radius:8px;border:1px solid var(--line);background:transparent;color:inherit;cursor:pointer}
button.link{flex:none;padding:0;border:0;background:none;color:var(--accent);font-weight:400;text-decoration:underline}
button.primary{background:var(--accent);border-color:var(--accent);color:#fff}
`;

const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

export function page(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${{ html: STYLE }}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

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
  /** Hashes of inline scripts the page runs. */
  readonly scriptHashes?: readonly string[];
}

/**
 * Sends a page with headers that keep it out of frames, caches and Referer headers,
 * and a CSP that allows nothing external.
 */
export function sendPage(reply: FastifyReply, statusCode: number, content: Html, policy: PagePolicy = {}): FastifyReply {
  const scripts = policy.scriptHashes?.length ? `script-src ${policy.scriptHashes.join(' ')}` : "script-src 'none'";
  const csp = [
    "default-src 'none'",
    `style-src ${STYLE_HASH}`,
    scripts,
    `form-action 'self'${(policy.formTargets ?? []).map((o) => ` ${o}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return reply
    .code(statusCode)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', csp)
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .send(content.html);
}

export function scriptHash(script: string): string {
  return `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
}
