import type { TokenResponse } from './types.js';

/** Texts kept by writtenOnce, by response: a rotation seals the text its reply then sends. */
const written = new WeakMap<TokenResponse, string>();

/**
 * RFC 6749 §5.1 token response as JSON text, written directly: the same text as
 * `JSON.stringify(response)` (same members, same order), without walking an object.
 * The text kept by writtenOnce is not written again.
 */
export function tokenResponseJson(response: TokenResponse): string {
  return written.get(response) ?? jsonOf(response);
}

/** tokenResponseJson, kept for the reply: the grace window's seal and the reply share one text. */
export function writtenOnce(response: TokenResponse): string {
  const json = jsonOf(response);
  written.set(response, json);
  return json;
}

function jsonOf(response: TokenResponse): string {
  let json = `{"access_token":${JSON.stringify(response.access_token)}`;
  if (response.issued_token_type !== undefined) json += `,"issued_token_type":${JSON.stringify(response.issued_token_type)}`;
  json += `,"token_type":"${response.token_type}"`;
  if (response.expires_in !== undefined) json += `,"expires_in":${response.expires_in}`;
  if (response.scope !== undefined) json += `,"scope":${JSON.stringify(response.scope)}`;
  if (response.refresh_token !== undefined) json += `,"refresh_token":${JSON.stringify(response.refresh_token)}`;
  if (response.id_token !== undefined) json += `,"id_token":${JSON.stringify(response.id_token)}`;
  return `${json}}`;
}
