/** URL rules shared by client metadata and branding. */

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether `value` is an https URL, or an http URL on this computer (development). */
export function isHttpsOrLocalUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.username !== '' || url.password !== '' || value.includes('#')) return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

/** localhost, 127.0.0.1 or [::1] (a URL's `hostname`): this computer. */
export const isLoopbackHost = (hostname: string): boolean => LOOPBACK_HOSTS.has(hostname);
