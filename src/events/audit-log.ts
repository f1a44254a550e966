import { AUDITED, type SecurityEvents } from './types.js';

/** What the audit log writes to: pino's `info(object, message)`, or anything shaped like it. */
export interface AuditSink {
  info(fields: Record<string, unknown>, message: string): void;
}

/**
 * The audit log: one line per audited event at `info`, with the stable `event` field, the
 * event's own fields and `audit: true` (to filter on). Events carry no secrets by
 * construction (src/events/types.ts); this writes exactly what they carry.
 */
export function auditLog(sink: AuditSink): SecurityEvents {
  return {
    emit(event) {
      if (!AUDITED[event.event]) return;
      sink.info({ audit: true, ...event }, event.event);
    },
  };
}
