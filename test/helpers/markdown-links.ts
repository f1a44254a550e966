import { readFile, stat } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import { fencedBlocks } from './readme.js';

/**
 * Links between our Markdown files, checked as GitHub renders them: a relative link must
 * name a file that exists and, with a #fragment, a heading of that file.
 */

/** The lines of a Markdown text with fenced code blocks blanked (their lines kept, so numbers stay). */
function proseLines(markdown: string): string[] {
  const lines = markdown.split('\n');
  for (const block of fencedBlocks(markdown)) {
    for (let i = block.open; i <= block.close && i < lines.length; i++) lines[i] = '';
  }
  return lines;
}

/**
 * GitHub's anchor for a heading (github-slugger): the text as rendered (code spans and
 * links become their text), lower case, every character but letters, digits, marks, `_`,
 * `-` and spaces removed, each space a `-`.
 */
export function githubSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown text's headings, in order; a repeated one gets `-1`, `-2`, … as on GitHub. */
export function headingSlugs(markdown: string): string[] {
  const seen = new Map<string, number>();
  const slugs: string[] = [];
  for (const line of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}(?:\s+(.*?))?(?:\s+#+)?\s*$/.exec(line);
    if (!heading) continue;
    const slug = githubSlug(heading[1] ?? '');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    slugs.push(count === 0 ? slug : `${slug}-${count}`);
  }
  return slugs;
}

export interface MarkdownLink {
  /** 1-based line. */
  readonly line: number;
  readonly target: string;
}

/** Inline links and images, and reference definitions, outside code, whose target is not a URL with a scheme. */
export function relativeLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  proseLines(markdown).forEach((text, i) => {
    const line = text.replace(/(`+)[^`]*?\1/g, 'code');
    const targets = [
      ...[...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string),
      ...[/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line)?.[1] ?? []].flat(),
    ];
    for (const target of targets) {
      if (!/^([a-z][a-z0-9+.-]*:|\/\/)/i.test(target)) links.push({ line: i + 1, target });
    }
  });
  return links;
}

/** The relative links of `files` (paths under `root`) that lead nowhere: `file line N: target (why)`. */
export async function brokenLinks(root: string, files: readonly string[]): Promise<string[]> {
  const texts = new Map<string, string | undefined>();
  const text = async (file: string) => {
    if (!texts.has(file)) texts.set(file, await readFile(join(root, file), 'utf8').catch(() => undefined));
    return texts.get(file);
  };
  const broken: string[] = [];
  for (const file of files) {
    for (const { line, target } of relativeLinks((await text(file)) ?? '')) {
      const [path = '', anchor] = target.split('#', 2) as [string, string | undefined];
      const linked = path === '' ? file : normalize(join(dirname(file), decodeURI(path))).replace(/\/$/, '');
      const problem = async () => {
        if (linked.startsWith('..')) return 'outside the repository';
        if (!(await stat(join(root, linked)).catch(() => undefined))) return `no file ${linked}`;
        if (anchor === undefined) return undefined;
        if (!linked.endsWith('.md')) return `an anchor into ${linked}, which has no headings`;
        return headingSlugs((await text(linked)) ?? '').includes(anchor) ? undefined : `no heading #${anchor} in ${linked}`;
      };
      const why = await problem();
      if (why) broken.push(`${file} line ${line}: ${target} (${why})`);
    }
  }
  return broken;
}
