import { SEALED_CLIENT_SECRET } from '../entries/registries.js';
import type { SealedSecrets } from '../entries/sealed-secrets.js';
import { ProviderRegistry } from '../identity/providers.js';
import type { EntryDocument, StoredEntry } from '../store/entry-types.js';
import { entryNoun, type EntryWriter, VALIDATING, validated } from './entries.js';
import { FileEntryConflict, ValidationProblem } from './problems.js';

/**
 * Upstream identity providers at runtime, validated by IDENTITY_PROVIDERS_FILE's schema. The
 * client secret is write-only: the store holds it sealed under ENTRIES_ENCRYPTION_KEY
 * (`client_secret_sealed`, src/entries/sealed-secrets.ts), never in clear; a replace without
 * `client_secret` keeps the one sealed. One of IDENTITY_PROVIDERS_FILE is read-only here.
 */

export interface AdminProvidersDependencies {
  readonly writer: EntryWriter;
  /** Undefined without IDENTITY_PROVIDERS_FILE's registry: then no provider entries are served. */
  readonly providers: ProviderRegistry | undefined;
  /** ENTRIES_ENCRYPTION_KEY; without it no provider can be stored. */
  readonly secrets: SealedSecrets | undefined;
  /** IDENTITY_PROVIDERS_ALLOW_INSECURE. */
  readonly allowHttp: boolean;
  readonly file: string;
}

const NAMES = { noun: 'provider', keyField: 'id' };

export class AdminProviders {
  constructor(private readonly deps: AdminProvidersDependencies) {}

  /** `document` carries `client_secret` in clear; the store gets it sealed. */
  async create(document: EntryDocument): Promise<StoredEntry> {
    const id = this.valid(document);
    this.refuseFileEntry(id);
    return this.deps.writer.create('provider', id, this.sealed(id, document));
  }

  /** Without `client_secret` in `document`, the one sealed in the store is kept. */
  async replace(id: string, document: EntryDocument, expectedRev?: number): Promise<StoredEntry> {
    this.refuseFileEntry(id);
    const withSecret = { ...document, client_secret: document.client_secret ?? (await this.keptSecret(id)) };
    if (this.valid(withSecret) !== id)
      throw new ValidationProblem('id cannot change', [{ field: 'id', problem: `must be "${id}", the provider's id` }]);
    return this.deps.writer.replace('provider', id, this.sealed(id, withSecret), expectedRev);
  }

  async delete(id: string, expectedRev?: number): Promise<void> {
    this.refuseFileEntry(id);
    await this.deps.writer.delete('provider', id, expectedRev);
  }

  private async keptSecret(id: string): Promise<string> {
    const kept = (await this.deps.writer.current('provider', id)).document[SEALED_CLIENT_SECRET];
    const opened = typeof kept === 'string' ? this.secrets().open(id, kept) : { problem: 'none is kept' };
    if ('secret' in opened) return opened.secret;
    const problem = `required: the one kept cannot be used (${opened.problem})`;
    throw new ValidationProblem(`client_secret ${problem}`, [{ field: 'client_secret', problem }]);
  }

  private valid(document: EntryDocument): string {
    const held = validated(
      document,
      NAMES,
      () => ProviderRegistry.fromEntries([document], VALIDATING, { allowHttp: this.deps.allowHttp }).listed()[0],
    );
    return held?.key ?? '';
  }

  private sealed(id: string, document: EntryDocument): EntryDocument {
    const { client_secret: secret, ...rest } = document;
    return { ...rest, [SEALED_CLIENT_SECRET]: this.secrets().seal(id, String(secret)) };
  }

  private secrets(): SealedSecrets {
    if (this.deps.secrets) return this.deps.secrets;
    const problem = 'cannot be stored: set ENTRIES_ENCRYPTION_KEY, the key provider secrets are sealed under';
    throw new ValidationProblem(`client_secret ${problem}`, [{ field: 'client_secret', problem }]);
  }

  private refuseFileEntry(id: string): void {
    if (this.deps.providers?.claimedByFile(id))
      throw new FileEntryConflict(`${entryNoun('provider', id)} is declared in ${this.deps.file}: change it there`);
  }
}
