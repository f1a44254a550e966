import { loggerOptions } from '../../src/http/logging.js';

/** The production logger configuration at `level`, writing its lines into memory. */
export function capturedLogger(level: string): { logger: unknown; lines: () => string[]; text: () => string } {
  const lines: string[] = [];
  return {
    logger: { ...(loggerOptions(level) as object), stream: { write: (line: string) => void lines.push(line) } },
    lines: () => lines,
    text: () => lines.join(''),
  };
}
