import { InvalidRequest } from '../errors/index.js';

/**
 * The parameters that may be repeated. RFC 8707 §2: "Multiple "resource" parameters
 * MAY be used to indicate that the requested token is intended to be used at multiple
 * resources." RFC 8693 §2.1 (token exchange): "Multiple audience parameters MAY be used".
 * Every other parameter stays under RFC 6749 §3.1.
 */
const REPEATABLE = new Set(['resource', 'audience']);

export function isRepeatable(name: string): boolean {
  return REPEATABLE.has(name);
}

/** Parameters as received, in order, repeats kept (the validators judge them). */
export type Parameters = ReadonlyArray<readonly [string, string]>;

/** The parameters of an application/x-www-form-urlencoded string (a form body, or a query string). */
export function parametersOf(encoded: string): Parameters {
  return [...new URLSearchParams(encoded)];
}

/** The parameters of a request URL's query string (none without `?`). */
export function queryParametersOf(url: string): Parameters {
  const start = url.indexOf('?');
  return start === -1 ? [] : parametersOf(url.slice(start + 1));
}

/**
 * Parameters of an application/x-www-form-urlencoded body (or a query string).
 * RFC 6749 §3.1: "Parameters sent without a value MUST be treated as if they were
 * omitted from the request. [...] Request and response parameters MUST NOT be
 * included more than once." A repeatable parameter is read with `all()`, never `get()`.
 */
export class FormParams {
  private constructor(
    private readonly values: ReadonlyMap<string, string>,
    private readonly lists: ReadonlyMap<string, readonly string[]>,
  ) {}

  static parse(encoded: string): FormParams {
    return FormParams.fromEntries(new URLSearchParams(encoded));
  }

  static fromEntries(entries: Iterable<readonly [string, string]>): FormParams {
    const values = new Map<string, string>();
    const lists = new Map<string, string[]>();
    const seen = new Set<string>();
    for (const [name, value] of entries) {
      if (isRepeatable(name)) {
        if (value !== '') lists.set(name, [...(lists.get(name) ?? []), value]);
        continue;
      }
      if (seen.has(name)) throw new InvalidRequest(`parameter '${name}' is repeated`);
      seen.add(name);
      if (value !== '') values.set(name, value);
    }
    return new FormParams(values, lists);
  }

  static empty(): FormParams {
    return new FormParams(new Map(), new Map());
  }

  get(name: string): string | undefined {
    return this.values.get(name);
  }

  require(name: string): string {
    const value = this.values.get(name);
    if (value === undefined) throw new InvalidRequest(`parameter '${name}' is required`);
    return value;
  }

  has(name: string): boolean {
    return this.values.has(name) || this.lists.has(name);
  }

  /** Every non-empty value of a repeatable parameter, in order. */
  all(name: string): readonly string[] {
    return this.lists.get(name) ?? [];
  }
}
