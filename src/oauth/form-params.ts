import { InvalidRequest } from '../errors.js';

/**
 * Parameters of an application/x-www-form-urlencoded body (or a query string).
 * RFC 6749 §3.1: "Parameters sent without a value MUST be treated as if they were
 * omitted from the request. [...] Request and response parameters MUST NOT be
 * included more than once."
 */
export class FormParams {
  private constructor(private readonly values: ReadonlyMap<string, string>) {}

  static parse(encoded: string): FormParams {
    return FormParams.fromEntries(new URLSearchParams(encoded));
  }

  static fromEntries(entries: Iterable<readonly [string, string]>): FormParams {
    const values = new Map<string, string>();
    const seen = new Set<string>();
    for (const [name, value] of entries) {
      if (seen.has(name)) throw new InvalidRequest(`parameter "${name}" is repeated`);
      seen.add(name);
      if (value !== '') values.set(name, value);
    }
    return new FormParams(values);
  }

  static empty(): FormParams {
    return new FormParams(new Map());
  }

  get(name: string): string | undefined {
    return this.values.get(name);
  }

  require(name: string): string {
    const value = this.values.get(name);
    if (value === undefined) throw new InvalidRequest(`parameter "${name}" is required`);
    return value;
  }

  has(name: string): boolean {
    return this.values.has(name);
  }
}
