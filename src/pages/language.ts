/**
 * The page language from Accept-Language (RFC 9110 §12.5.4): the supported language with
 * the highest weight, matched on its primary subtag (`de-CH` → `de`); `*` and anything
 * unsupported fall back to the default.
 */

/** More ranges than any browser sends; the rest are ignored so a long header costs nothing. */
const MAX_RANGES = 32;
const RANGE = /^([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)$/;
// RFC 9110 §12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
const WEIGHT = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i;

interface WeightedRange {
  readonly range: string;
  readonly weight: number;
  readonly order: number;
}

function parseRanges(header: string): WeightedRange[] {
  const ranges: WeightedRange[] = [];
  for (const [order, part] of header.split(',', MAX_RANGES).entries()) {
    const [rangePart, ...params] = part.split(';').map((p) => p.trim());
    if (!rangePart || !RANGE.test(rangePart)) continue;
    const weightParam = params.find((p) => /^q=/i.test(p));
    const weight = weightParam === undefined ? 1 : WEIGHT.test(weightParam) ? Number(weightParam.slice(2)) : undefined;
    // A malformed weight drops the range; "q=0" means "not acceptable" (RFC 9110 §12.4.2).
    if (weight === undefined || weight === 0) continue;
    ranges.push({ range: rangePart.toLowerCase(), weight, order });
  }
  return ranges.sort((a, b) => b.weight - a.weight || a.order - b.order);
}

/** The language to answer in: one of `supported`, `fallback` when none is acceptable. */
export function negotiateLanguage(header: string | undefined, supported: readonly string[], fallback: string): string {
  if (header === undefined) return fallback;
  for (const { range } of parseRanges(header)) {
    if (range === '*') return fallback;
    const primary = range.split('-', 1)[0] as string;
    if (supported.includes(primary)) return primary;
  }
  return fallback;
}
