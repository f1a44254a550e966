import type { EntryDocument, StoredEntry } from '../store/entry-types.js';
import { WorkloadTrustRegistry } from '../workloads/trusts.js';
import { entryNoun, type EntryWriter, VALIDATING, validated } from './entries.js';
import { AlreadyExists, FileEntryConflict, ValidationProblem } from './problems.js';

/**
 * Workload trusts (MCP Workload Identity Federation) at runtime, validated by
 * WORKLOAD_TRUSTS_FILE's schema and its checks (http:// only with
 * WORKLOAD_TRUSTS_ALLOW_INSECURE; one trust per issuer, whichever source holds it). One of
 * WORKLOAD_TRUSTS_FILE is read-only here.
 */

export interface AdminWorkloadTrustsDependencies {
  readonly writer: EntryWriter;
  /** The trusts served (file and store, merged). */
  readonly trusts: WorkloadTrustRegistry;
  /** WORKLOAD_TRUSTS_ALLOW_INSECURE. */
  readonly allowHttp: boolean;
  /** How a conflict names WORKLOAD_TRUSTS_FILE. */
  readonly file: string;
}

const NAMES = { noun: 'trust', keyField: 'id' };

export class AdminWorkloadTrusts {
  constructor(private readonly deps: AdminWorkloadTrustsDependencies) {}

  async create(document: EntryDocument): Promise<StoredEntry> {
    const { id, issuer } = this.valid(document);
    this.refuseFileEntry(id);
    this.refuseTrustedIssuer(id, issuer);
    return this.deps.writer.create('workload_trust', id, document);
  }

  async replace(id: string, document: EntryDocument, expectedRev?: number): Promise<StoredEntry> {
    this.refuseFileEntry(id);
    const trust = this.valid(document);
    if (trust.id !== id) throw new ValidationProblem('id cannot change', [{ field: 'id', problem: `must be "${id}", the trust's id` }]);
    this.refuseTrustedIssuer(id, trust.issuer);
    return this.deps.writer.replace('workload_trust', id, document, expectedRev);
  }

  async delete(id: string, expectedRev?: number): Promise<void> {
    this.refuseFileEntry(id);
    await this.deps.writer.delete('workload_trust', id, expectedRev);
  }

  private valid(document: EntryDocument): { id: string; issuer: string } {
    const held = validated(
      document,
      NAMES,
      () => WorkloadTrustRegistry.fromEntries([document], VALIDATING, { allowHttp: this.deps.allowHttp }).listed()[0],
    );
    return { id: held?.key ?? '', issuer: held?.value.issuer ?? '' };
  }

  /** The issuer finds the trust: a second trust of one issuer would never be used. */
  private refuseTrustedIssuer(id: string, issuer: string): void {
    const twin = this.deps.trusts.byIssuer(issuer);
    if (!twin || twin.id === id) return;
    if (this.deps.trusts.claimedByFile(twin.id))
      throw new FileEntryConflict(`the issuer ${issuer} is trusted by trust "${twin.id}" of ${this.deps.file}: one trust per issuer`);
    throw new AlreadyExists(`the issuer ${issuer} is trusted by trust "${twin.id}" already: one trust per issuer`);
  }

  private refuseFileEntry(id: string): void {
    if (this.deps.trusts.claimedByFile(id))
      throw new FileEntryConflict(`${entryNoun('workload_trust', id)} is declared in ${this.deps.file}: change it there`);
  }
}
