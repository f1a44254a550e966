import { hostname } from 'node:os';

/**
 * The primary's log lines, in the workers' (pino) JSON shape so one pipeline reads both.
 * The primary handles no request and no secret: it logs only process events.
 */
const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;
export type LogLevel = keyof typeof LEVELS;

type Fields = Record<string, string | number | boolean | null | undefined>;

export interface PrimaryLog {
  info(fields: Fields, msg: string): void;
  warn(fields: Fields, msg: string): void;
  error(fields: Fields, msg: string): void;
}

export function primaryLog(level: LogLevel, write: (line: string) => void = (line) => process.stdout.write(line)): PrimaryLog {
  const threshold = LEVELS[level];
  const host = hostname();
  const at = (value: number) => (fields: Fields, msg: string) => {
    if (value < threshold) return;
    write(`${JSON.stringify({ level: value, time: Date.now(), pid: process.pid, hostname: host, role: 'primary', ...fields, msg })}\n`);
  };
  return { info: at(LEVELS.info), warn: at(LEVELS.warn), error: at(LEVELS.error) };
}
