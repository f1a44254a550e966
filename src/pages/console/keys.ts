import type { KeyChainView, KeyView } from '../../admin/keys.js';
import { type Html, html } from '../html.js';
import type { PageView } from '../view.js';
import { momentOf } from './format.js';
import { scrollingTable } from './frame.js';

/** The signing keys, read-only: per chain its keys, their state, and when the next one signs. */

function when(view: PageView, seconds: number | undefined): Html {
  return seconds === undefined ? html`` : html`${momentOf(seconds, view.t.lang)}`;
}

function keyRow(view: PageView, key: KeyView): Html {
  const t = view.t.console;
  return html`<tr><td><code>${key.kid}</code></td><td>${t.keyStates[key.state]}</td><td>${key.published ? t.yes : t.no}</td>
<td>${when(view, key.signs_from)}</td><td>${when(view, key.signs_until)}</td><td>${when(view, key.publish_until)}</td></tr>`;
}

function nextKey(view: PageView, chain: KeyChainView, now: number): Html {
  const t = view.t.console;
  const next = chain.keys.find((key) => key.state === 'scheduled' && key.signs_from > now);
  if (!next) return html`<p class="muted">${t.noNextKey}</p>`;
  return html`<p>${t.nextKeySigns(html`<code>${next.kid}</code>`, momentOf(next.signs_from, view.t.lang))}</p>`;
}

function chainSection(view: PageView, chain: KeyChainView, now: number): Html {
  const t = view.t.console;
  const id = `chain-${chain.alg.toLowerCase()}`;
  const head = html`<tr><th scope="col">${t.keyId}</th><th scope="col">${t.state}</th><th scope="col">${t.published}</th><th scope="col">${t.signsFrom}</th><th scope="col">${t.signsUntil}</th><th scope="col">${t.publishedUntil}</th></tr>`;
  return html`<section><h2 id="${id}">${t.chain(chain.alg)}</h2>
<p class="muted">${chain.signs_access_tokens ? t.signsAccessTokens : t.signsIdTokens}</p>
${nextKey(view, chain, now)}
${scrollingTable(
  { id: `${id}-caption`, text: html`${t.chain(chain.alg)}`, hidden: true },
  head,
  chain.keys.map((key) => keyRow(view, key)),
)}</section>`;
}

export function keysBody(view: PageView, chains: readonly KeyChainView[], now: number): Html {
  return html`<p class="muted">${view.t.console.keysIntro}</p>
${chains.map((chain) => chainSection(view, chain, now))}`;
}
