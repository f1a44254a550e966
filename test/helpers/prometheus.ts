import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { stringify } from 'yaml';
import { freePort } from '../../harness/ports.js';
import { REPOSITORY, runProgram, type CommandResult } from '../../harness/process.js';

/** Debian's `prometheus` package (.ci/run installs it); a test fails, never skips, when it is missing. */
export const PROMTOOL = '/usr/bin/promtool';
export const PROMETHEUS = '/usr/bin/prometheus';
/** The shipped rules and their promtool tests. */
export const RULES_DIR = join(REPOSITORY, 'deploy/prometheus');

async function installed(binary: string): Promise<void> {
  await access(binary).catch(() => {
    throw new Error(`${binary} is missing: apt-get install --no-install-recommends prometheus (Debian's package; .ci/run installs it)`);
  });
}

/** Runs promtool in `cwd`. */
export async function promtool(args: string[], cwd = RULES_DIR): Promise<CommandResult> {
  await installed(PROMTOOL);
  return runProgram(PROMTOOL, args, cwd);
}

export interface PrometheusProcess {
  readonly url: string;
  readonly output: () => string;
  /** GET `path` of its HTTP API; the `data` of a successful answer. */
  api<T>(path: string): Promise<T>;
}

/**
 * A real Prometheus on a free loopback port, scraping `targets` (job `oauth2-token-service`,
 * as in docs/operations.md) every second and evaluating `ruleFiles` every second, with its
 * TSDB in a temporary folder; stopped and its folder removed when the test ends.
 */
export async function startPrometheus(t: Test, targets: string[], ruleFiles: string[]): Promise<PrometheusProcess> {
  await installed(PROMETHEUS);
  const dir = await mkdtemp(join(tmpdir(), 'oauth-prometheus-'));
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: ruleFiles,
    scrape_configs: [{ job_name: 'oauth2-token-service', static_configs: [{ targets }] }],
  };
  await writeFile(join(dir, 'prometheus.yml'), stringify(config));
  const port = await freePort();
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = once(child, 'exit').catch(() => undefined);
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${port}`;
  await until(async () => {
    if (child.exitCode !== null) throw new Error(`prometheus exited during start:\n${output}`);
    return (await fetch(`${url}/-/ready`).catch(() => undefined))?.status === 200;
  }, `prometheus ready at ${url}`);
  return {
    url,
    output: () => output,
    async api<T>(path: string): Promise<T> {
      const body = (await (await fetch(`${url}${path}`)).json()) as { status: string; data: T };
      if (body.status !== 'success') throw new Error(`${path}: ${JSON.stringify(body)}`);
      return body.data;
    },
  };
}

/** Polls `condition` every 250 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
