/** Shared by the operator scripts: a failure prints one clear line and exits non-zero. */
export async function runCli(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}

export function wholeSeconds(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new Error(`${name} must be a whole number of seconds`);
  return Number(value);
}

/** With `--help`, prints the usage; the script then does nothing else. */
export function printedUsage(help: boolean | undefined, usage: string): boolean {
  if (help) process.stdout.write(`${usage}\n`);
  return help === true;
}

/** How a command reports a problem with a file: one line, printed by runCli. */
export const failure = (message: string): Error => new Error(message);
