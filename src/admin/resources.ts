import { ResourceRegistry } from '../resources/registry.js';
import type { EntryDocument, StoredEntry } from '../store/entry-types.js';
import { entryNoun, type EntryWriter, VALIDATING, validated } from './entries.js';
import { FileEntryConflict, ValidationProblem } from './problems.js';

/**
 * Protected resources (RFC 8707) at runtime, validated by RESOURCES_FILE's schema and
 * addressed by their resource identifier; one of RESOURCES_FILE is read-only here.
 */

export interface AdminResourcesDependencies {
  readonly writer: EntryWriter;
  readonly resources: ResourceRegistry;
  /** How a conflict names RESOURCES_FILE. */
  readonly file: string;
  /** The built-in resources' identifiers (the admin API's own): never an entry. */
  readonly reserved: readonly string[];
}

const NAMES = { noun: 'resource', keyField: 'resource' };

export class AdminResources {
  constructor(private readonly deps: AdminResourcesDependencies) {}

  async create(document: EntryDocument): Promise<StoredEntry> {
    const resource = this.valid(document);
    this.refuseFileEntry(resource);
    return this.deps.writer.create('resource', resource, document);
  }

  async replace(resource: string, document: EntryDocument, expectedRev?: number): Promise<StoredEntry> {
    this.refuseFileEntry(resource);
    if (this.valid(document) !== resource)
      throw new ValidationProblem('resource cannot change', [
        { field: 'resource', problem: `must be "${resource}", the entry's resource` },
      ]);
    return this.deps.writer.replace('resource', resource, document, expectedRev);
  }

  async delete(resource: string, expectedRev?: number): Promise<void> {
    this.refuseFileEntry(resource);
    await this.deps.writer.delete('resource', resource, expectedRev);
  }

  private valid(document: EntryDocument): string {
    const held = validated(
      document,
      NAMES,
      () => ResourceRegistry.fromEntries([document], VALIDATING, { reserved: this.deps.reserved }).listed()[0],
    );
    return held?.key ?? '';
  }

  private refuseFileEntry(resource: string): void {
    if (this.deps.resources.claimedByFile(resource))
      throw new FileEntryConflict(`${entryNoun('resource', resource)} is declared in ${this.deps.file}: change it there`);
  }
}
