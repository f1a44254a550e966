import type { ClientRegistry } from '../clients/registry.js';
import type { Clock } from '../clock.js';
import type { EntrySync } from '../entries/sync.js';
import type { Resolver } from '../fetch/safe-fetch.js';
import type { ProviderRegistry } from '../identity/providers.js';
import type { Keystore } from '../keys/keystore.js';
import type { ServerMetrics } from '../metrics/server-metrics.js';
import type { ResourceRegistry } from '../resources/registry.js';
import type { Signer } from '../session/signer.js';
import type { Store } from '../store/types.js';
import type { UserRegistry } from '../users/registry.js';
import type { WorkloadTrustRegistry } from '../workloads/trusts.js';

/** What the service wiring (src/services/index.ts) takes: what the process opened (keys, registries, store). */
export interface ServiceDependencies {
  readonly keystore: Keystore;
  readonly clients: ClientRegistry;
  readonly users: UserRegistry;
  /** Protected resources (RFC 8707) clients may name with `resource`; default: none. */
  readonly resources?: ResourceRegistry;
  /** Upstream identity providers (IDENTITY_PROVIDERS_FILE); default: none, only the password form. */
  readonly providers?: ProviderRegistry | undefined;
  /** Workload trusts (WORKLOAD_TRUSTS_FILE); default: none, no workload is served. */
  readonly workloads?: WorkloadTrustRegistry | undefined;
  readonly store: Store;
  /** Signs session cookies and forms; instances behind one load balancer need the same secret. */
  readonly signer: Signer;
  /** Injected so tests control time. */
  readonly clock?: Clock;
  /** Trust anchors (PEM) and DNS for fetching URLs clients and providers name (tests); default: Node's CA list and DNS. */
  readonly outboundFetch?: { readonly ca?: string; readonly resolve?: Resolver };
  /**
   * The Prometheus series to record into, when METRICS_PORT is set (served by
   * buildMetricsServer, or by this app when METRICS_PORT equals PORT); none: nothing is measured.
   */
  readonly metrics?: ServerMetrics | undefined;
  /** The admin API's entries followed from the store (startServer's, started); default: one made here, stopped with the app. */
  readonly entrySync?: EntrySync | undefined;
}
