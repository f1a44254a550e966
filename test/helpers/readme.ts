import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The docs' convention: a ```sh block is a command sequence that runs as written, in
 * order, in one shell, against `npm run dev`; any other fence (text, console, json, yaml, …)
 * is to read. These helpers cut Markdown files into their sh blocks and run them in one bash.
 */
export interface ShellBlock {
  /** The Markdown file, relative to the repository ('' when the text came from elsewhere). */
  readonly file: string;
  /** 1-based line of the opening fence in the Markdown file. */
  readonly line: number;
  readonly code: string;
}

/** A fenced block: its info string, 0-based lines of its fences, and its body without the fence's indentation. */
export interface FencedBlock {
  readonly info: string;
  readonly open: number;
  /** The closing fence, or the number of lines when the block runs to the end. */
  readonly close: number;
  readonly body: string[];
}

const FENCE = /^( *)(`{3,}|~{3,})\s*([^\s`]*)/;

/** Every fenced code block of a Markdown text, in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] as string);
    if (!open) continue;
    const [, indent = '', fence = '', info = ''] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] as string;
      if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    blocks.push({ info, open: i, close: j, body });
    i = j;
  }
  return blocks;
}

/** Every fenced block whose info string is `sh`, in order, with the fence's indentation removed. */
export function shellBlocks(markdown: string, file = ''): ShellBlock[] {
  return fencedBlocks(markdown)
    .filter((block) => block.info === 'sh')
    .map((block) => ({ file, line: block.open + 1, code: block.body.join('\n') }));
}

/** Info strings of fences that look like shell but are not `sh`: ambiguous under the convention. */
export function otherShellFences(markdown: string): { line: number; info: string }[] {
  return markdown
    .split('\n')
    .map((line, i) => ({ line: i + 1, info: FENCE.exec(line)?.[3] ?? '' }))
    .filter(({ info }) => ['bash', 'shell', 'zsh', 'shell-session'].includes(info));
}

export interface DocsBlocks {
  /** README.md's blocks, then those of each declared page, in the declared order. */
  readonly blocks: ShellBlock[];
  /** Declared pages that do not exist. */
  readonly absent: string[];
  /** Pages of docs/ with sh blocks that the declared order leaves out. */
  readonly unlisted: string[];
  /** Shell commands fenced as something else than sh or text (`file line info`). */
  readonly otherFences: string[];
}

/**
 * The sh blocks of README.md and then of `pages` (paths such as `docs/tokens.md`), in that
 * order: later pages may use what earlier ones defined, so the order is declared, never
 * the folder's.
 */
export async function docsShellBlocks(root: string, pages: readonly string[]): Promise<DocsBlocks> {
  const read = (file: string) =>
    readFile(join(root, file), 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
  const blocks: ShellBlock[] = [];
  const absent: string[] = [];
  for (const file of ['README.md', ...pages]) {
    const markdown = await read(file);
    if (markdown === undefined) absent.push(file);
    else blocks.push(...shellBlocks(markdown, file));
  }
  const unlisted: string[] = [];
  const otherFences: string[] = [];
  const inFolder = (await readdir(join(root, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  for (const file of ['README.md', ...inFolder.sort()]) {
    const markdown = (await read(file)) ?? '';
    if (file !== 'README.md' && !pages.includes(file) && shellBlocks(markdown).length > 0) unlisted.push(file);
    otherFences.push(...otherShellFences(markdown).map(({ line, info }) => `${file} line ${line}: ${info}`));
  }
  return { blocks, absent, unlisted, otherFences };
}

const MARK = '::readme-block';

/**
 * One bash script: `prologue` (the test's own setup), then every block between markers, under
 * `set -euo pipefail`, then `epilogue`. On exit, for whatever reason, the background jobs it
 * started are stopped and the exit status is printed.
 */
export function blocksScript(blocks: readonly ShellBlock[], prologue = '', epilogue = ''): string {
  return [
    'exec 2>&1',
    'set -euo pipefail',
    `trap 'status=$?; kill $(jobs -p) 2>/dev/null || true; echo "::readme-exit $status"' EXIT`,
    prologue,
    ...blocks.map((block, i) => `printf '\\n${MARK} ${i} start\\n'\n${block.code}\nprintf '\\n${MARK} ${i} end\\n'`),
    epilogue,
    '',
  ].join('\n');
}

export interface BlockOutcome {
  readonly block: ShellBlock;
  readonly started: boolean;
  readonly finished: boolean;
  /** What the block printed (stdout and stderr together). */
  readonly output: string;
}

/** What each block did, read from the markers in the transcript of `blocksScript`. */
export function blockOutcomes(blocks: readonly ShellBlock[], transcript: string): BlockOutcome[] {
  return blocks.map((block, i) => {
    const start = transcript.indexOf(`${MARK} ${i} start\n`);
    const end = transcript.indexOf(`\n${MARK} ${i} end\n`);
    const from = start < 0 ? -1 : start + `${MARK} ${i} start\n`.length;
    const next = transcript.indexOf(`\n${MARK} `, from);
    const to = end >= 0 ? end : next >= 0 ? next : transcript.length;
    return { block, started: start >= 0, finished: end >= 0, output: from < 0 ? '' : transcript.slice(from, to) };
  });
}

/** The exit status the script's EXIT trap printed (undefined when bash died before it). */
export const scriptStatus = (transcript: string) => {
  const match = /::readme-exit (\d+)/.exec(transcript);
  return match ? Number(match[1]) : undefined;
};

/** Runs `command` (bash, or unshare … bash) in its own process group; kills the whole group after `timeoutMs`. */
export async function runScript(
  command: readonly string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number | null; transcript: string; timedOut: boolean }> {
  const [program, ...args] = command as [string, ...string[]];
  const child = spawn(program, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let transcript = '';
  child.stdout.on('data', (chunk: Buffer) => (transcript += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (transcript += chunk.toString()));
  let timedOut = false;
  const killGroup = () => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // the group is gone already
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  killGroup(); // what the script left behind, if anything
  return { code, transcript, timedOut };
}

/** A synchronous read of stdin (`readFileSync(0)`, `/dev/stdin`): on a non-blocking pipe it throws EAGAIN now and then. */
const SYNC_STDIN = /readFileSync\(\s*(?:0|['"]\/dev\/stdin['"])/;

/** The lines (1-based) of every code block of `markdown` that reads stdin synchronously. */
export function syncStdinLines(markdown: string): number[] {
  return fencedBlocks(markdown).flatMap((block) =>
    block.body.flatMap((line, index) => (SYNC_STDIN.test(line) ? [block.open + index + 2] : [])),
  );
}

/** `npx` running our command without `--no-install`: outside an install, npx would fetch a stranger's package of that name. */
const BARE_NPX = /\bnpx\s+(?:(?!--no-install\b)-\S+\s+)*oauth2-token-service\b/;

/** The lines (1-based) of every code block of `markdown` that runs `npx oauth2-token-service` without `--no-install`. */
export function bareNpxLines(markdown: string): number[] {
  return fencedBlocks(markdown).flatMap((block) =>
    block.body.flatMap((line, index) => (BARE_NPX.test(line) ? [block.open + index + 2] : [])),
  );
}
