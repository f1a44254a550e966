import { type ServerProcess, untilPrinted } from '../../harness/process.js';

/** The JSON lines a server process logged (pino), for tests that read what it said and which pid said it. */

export interface LogEntry {
  readonly pid: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** Every JSON line of `output`, in order; other lines (a warning of npm, a stack) are left out. */
export function logEntries(output: string): LogEntry[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogEntry);
}

/** The line a server logs once it listens. */
export function readyEntry(output: string): LogEntry | undefined {
  return logEntries(output).find((entry) => entry.msg === 'authorization server ready');
}

/**
 * The ready line of a server process, waiting (5 s at most) for it: the server answers HTTP as
 * soon as it listens, and the line it logged then may still be in the pipe.
 */
export async function readyLogged(server: ServerProcess): Promise<LogEntry | undefined> {
  await untilPrinted(server, (output) => readyEntry(output) !== undefined);
  return readyEntry(server.output());
}
