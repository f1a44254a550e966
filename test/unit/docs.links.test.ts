import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPOSITORY } from '../../harness/repository.js';
import t from 'tap';
import { tempDir } from '../helpers/keys.js';
import { brokenLinks, githubSlug, headingSlugs, relativeLinks } from '../helpers/markdown-links.js';

/**
 * Every relative link of the docs leads somewhere (issue 21, item 7): the file exists and,
 * with a #fragment, the file has a heading with that anchor, as GitHub makes anchors.
 */
const ROOT = REPOSITORY;

const docsFiles = async () => [
  'README.md',
  'BENCHMARKS.md',
  'ARCHITECTURE.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  ...(await readdir(join(ROOT, 'docs')))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

t.test(
  'every relative link of README.md, BENCHMARKS.md, ARCHITECTURE.md, CONTRIBUTING.md, CHANGELOG.md and docs/ leads to a file and a heading',
  async (t) => {
    const files = await docsFiles();
    t.ok(files.length >= 10, `the docs pages are found (${files.length})`);
    t.same(await brokenLinks(ROOT, files), []);
  },
);

t.test('every page of docs/ starts with its title, a one-line purpose and a contents list of its own sections', async (t) => {
  for (const file of (await docsFiles()).filter((file) => file.startsWith('docs/') || file === 'BENCHMARKS.md')) {
    const markdown = await readFile(join(ROOT, file), 'utf8');
    const lines = markdown.split('\n');
    t.match(lines[0], /^# \S/, `${file}: a title`);
    t.match(lines[2], /^[^#\s-].*\S$/, `${file}: a one-line purpose`);
    const end = lines.findIndex((line, i) => i >= 4 && !/^ *- \[/.test(line));
    const contents = lines.slice(4, end);
    const sections = [...markdown.matchAll(/^## (.+)$/gm)].map((m) => `#${githubSlug(m[1] as string)}`);
    const listed = contents.map((line) => /\]\((#[^)]+)\)/.exec(line)?.[1]);
    t.same(
      sections.filter((anchor) => !listed.includes(anchor)),
      [],
      `${file}: the contents list names every ## section`,
    );
  }
});

t.test("ARCHITECTURE.md's layout names every folder and root file of src/, and nothing that is gone", async (t) => {
  const architecture = await readFile(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
  const layout = /^## Layout\n([\s\S]*?)^## /m.exec(architecture)?.[1] ?? '';
  const named = [...layout.matchAll(/^(src\/\S+)/gm)].map((m) => m[1] as string).sort();
  const entries = (await readdir(join(ROOT, 'src'), { withFileTypes: true }))
    .map((entry) => `src/${entry.name}${entry.isDirectory() ? '/' : ''}`)
    .sort();
  t.same(named, entries);
});

t.test("githubSlug makes GitHub's anchors", async (t) => {
  t.equal(githubSlug('Sign-out (`/oauth2/logout`)'), 'sign-out-oauth2logout');
  t.equal(githubSlug('Remembered consent, `prompt` and `max_age`'), 'remembered-consent-prompt-and-max_age');
  t.equal(githubSlug('The operator command: `oauth2-token-service`'), 'the-operator-command-oauth2-token-service');
  t.equal(githubSlug('Where the signature is computed: `npm run bench:signing`'), 'where-the-signature-is-computed-npm-run-benchsigning');
  t.equal(githubSlug('Dynamic client registration (RFC 7591 and RFC 7592)'), 'dynamic-client-registration-rfc-7591-and-rfc-7592');
  t.equal(githubSlug('A [linked](other.md#x) heading'), 'a-linked-heading', 'a link counts by its text');
  t.equal(githubSlug('Größe & Ü'), 'größe--ü', 'letters stay, punctuation goes, each space is a hyphen');
});

t.test('headingSlugs: repeated headings get -1, -2; lines in code blocks are not headings', async (t) => {
  const markdown = [
    '# Notes',
    '## Setup',
    'text',
    '```yaml',
    '# not a heading',
    '```',
    '## Setup',
    '### Setup',
    '#hashtag',
    '## Setup ##',
  ].join('\n');
  t.same(headingSlugs(markdown), ['notes', 'setup', 'setup-1', 'setup-2', 'setup-3']);
});

t.test('relativeLinks: links and images outside code, not URLs', async (t) => {
  const markdown = [
    'See [a](docs/a.md#part), ![shot](docs/shot.png) and [same page](#top).',
    'Not [web](https://example.com/x), not [mail](mailto:a@example.com), not `[code](x.md)`.',
    '```text',
    '[in a block](missing.md)',
    '```',
    '[ref]: docs/b.md',
  ].join('\n');
  t.same(relativeLinks(markdown), [
    { line: 1, target: 'docs/a.md#part' },
    { line: 1, target: 'docs/shot.png' },
    { line: 1, target: '#top' },
    { line: 6, target: 'docs/b.md' },
  ]);
});

t.test('brokenLinks names a missing page, a missing anchor, and an anchor of the same page', async (t) => {
  const dir = await tempDir(t);
  await mkdir(join(dir, 'docs'));
  await writeFile(
    join(dir, 'README.md'),
    [
      '# Title',
      '## First requests',
      '[ok](docs/a.md#part-one) [ok](#first-requests) [ok](docs/) [ok](docs/a.md)',
      '[gone](docs/gone.md) [no anchor](docs/a.md#part-two) [here](#nowhere) [out](../x.md)',
    ].join('\n'),
  );
  await writeFile(
    join(dir, 'docs', 'a.md'),
    ['# A', '## Part one', '[back](../README.md#title) [broken](../README.md#first-request)'].join('\n'),
  );
  t.same(await brokenLinks(dir, ['README.md', 'docs/a.md']), [
    'README.md line 4: docs/gone.md (no file docs/gone.md)',
    'README.md line 4: docs/a.md#part-two (no heading #part-two in docs/a.md)',
    'README.md line 4: #nowhere (no heading #nowhere in README.md)',
    'README.md line 4: ../x.md (outside the repository)',
    'docs/a.md line 3: ../README.md#first-request (no heading #first-request in README.md)',
  ]);
});
