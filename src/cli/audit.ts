import { hostname, userInfo } from 'node:os';
import { type Clock, systemClock } from '../clock.js';
import { auditLog } from '../events/audit-log.js';
import type { SecurityEvents } from '../events/types.js';
import type { CliIo } from './command.js';

/**
 * The audit trail of an administrator's command: the server's audit lines (README, "Audit
 * events"), one JSON line per event on stderr, shaped as the servers' pino lines (level 30,
 * time, pid, hostname, `"audit":true`, the event's fields, msg), so one filter collects
 * both. stdout keeps the command's own result lines. Written directly rather than through
 * pino, which the server has only through Fastify: the line is a fixed, flat shape.
 */
export function commandAuditLog(io: CliIo): SecurityEvents {
  const clock: Clock = io.clock ?? systemClock;
  const host = hostname();
  return auditLog({
    info(fields, message) {
      io.stderr.write(`${JSON.stringify({ level: 30, time: clock(), pid: process.pid, hostname: host, ...fields, msg: message })}\n`);
    },
  });
}

/**
 * The `operator` field of an audit line: the operating-system account running the command,
 * or nothing when the system cannot tell (no passwd entry in a container).
 */
export function operatorField(): { readonly operator?: string } {
  try {
    const { username } = userInfo();
    return username ? { operator: username } : {};
  } catch {
    return {};
  }
}
