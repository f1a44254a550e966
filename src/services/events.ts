import { auditLog, type AuditSink } from '../events/audit-log.js';
import { fanOut, type SecurityEvents } from '../events/types.js';
import type { ServerMetrics } from '../metrics/server-metrics.js';
import type { ServiceLog } from './index.js';

/**
 * Where the server's security events go: the audit log (one `info` line each), the metrics
 * when there are any, and the console's counters. A consumer that throws is logged, never fails the request.
 */
export function serverEvents(
  log: ServiceLog | (AuditSink & Pick<ServiceLog, 'error'>),
  metrics?: ServerMetrics,
  /** More consumers (the console's last hour). */
  others: readonly SecurityEvents[] = [],
): SecurityEvents {
  return fanOut([auditLog(log), ...(metrics ? [metrics] : []), ...others], (err) =>
    log.error({ err: { message: (err as Error).message } }, 'security event consumer failed'),
  );
}
