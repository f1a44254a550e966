import { Readable } from 'node:stream';
import { runCli } from '../../src/cli/dispatch.js';
import type { Clock } from '../../src/clock.js';
import type { CommandResult } from '../../harness/process.js';

/**
 * Runs `oauth2-token-service <args>` in-process with captured streams: the same exit
 * code, stdout and stderr as the process (test/e2e/cli.process.test.ts checks that the
 * process adds nothing). The environment is only `env`, never the test runner's.
 */
export async function runCommand(
  args: string[],
  options: { env?: Record<string, string>; input?: string; clock?: Clock } = {},
): Promise<CommandResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]),
    env: options.env ?? {},
    clock: options.clock,
  });
  return { code, stdout, stderr };
}
