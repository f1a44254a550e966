/** Times as the console and the account page show them: in the page's language, in UTC (the server does not know the reader's zone). */

const formats = new Map<string, Intl.DateTimeFormat>();

function format(lang: string, kind: 'moment' | 'minute'): Intl.DateTimeFormat {
  const key = `${lang} ${kind}`;
  let found = formats.get(key);
  if (!found) {
    const options: Intl.DateTimeFormatOptions =
      kind === 'moment'
        ? { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }
        : { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' };
    found = new Intl.DateTimeFormat(lang, options);
    formats.set(key, found);
  }
  return found;
}

/** A moment (seconds since the epoch): date and time, with "UTC". */
export function momentOf(seconds: number, lang: string): string {
  return `${format(lang, 'moment').format(new Date(seconds * 1000))} UTC`;
}

/** The minute of a chart (seconds since the epoch): `14:05`. */
export function minuteOf(seconds: number, lang: string): string {
  return format(lang, 'minute').format(new Date(seconds * 1000));
}
