import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { ServerMetrics } from '../../src/metrics/server-metrics.js';
import { REPOSITORY } from '../../harness/repository.js';
import { headingSlugs } from '../helpers/markdown-links.js';
import { metricsListener, type Sample, scrape } from '../helpers/metrics.js';
import { fencedBlocks } from '../helpers/readme.js';
import { basic, buildTestServer, FORM_HEADERS, SECRETS, TEST_CLIENTS } from '../helpers/server.js';

/**
 * deploy/prometheus/alerts.yml against the server it watches (promtool runs its own tests in
 * test/e2e/alerts.promtool.test.ts): every series and label it names is one the server
 * exports, its selectors match the label values the server really writes, and the docs
 * show it without drifting from it.
 */

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string; description: string };
}

const RULES_FILE = join(REPOSITORY, 'deploy/prometheus/alerts.yml');
/** Series Prometheus writes itself, with the target's labels. */
const PROMETHEUS_SERIES: Record<string, string[]> = { up: [] };
const TARGET_LABELS = ['job', 'instance'];

async function shippedRules(): Promise<Rule[]> {
  const file = parse(await readFile(RULES_FILE, 'utf8')) as { groups: { name: string; rules: Rule[] }[] };
  return file.groups.flatMap((group) => group.rules);
}

interface Selector {
  readonly metric: string;
  readonly matchers: { name: string; op: string; value: string }[];
  /** Whether it is the argument of increase(): the series must exist before its first count. */
  readonly inIncrease: boolean;
}

/** The series selectors of a PromQL expression (names, label matchers): enough for the rules we ship. */
function selectorsOf(expr: string): Selector[] {
  const selectors: Selector[] = [];
  const stripped = expr
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, '')
    .replace(
      /(increase\s*\(\s*)?([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{([^}]*)\}/g,
      (_all, increase: string | undefined, metric: string, body: string) => {
        const matchers = [...body.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)].map(
          ([, name, op, value]) => ({
            name: name as string,
            op: op as string,
            value: value as string,
          }),
        );
        selectors.push({ metric, matchers, inIncrease: increase !== undefined });
        return ' ';
      },
    );
  for (const match of stripped.matchAll(/(increase\s*\(\s*)?\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)) {
    const metric = match[2] as string;
    if (['and', 'or', 'unless', 'bool', 'offset'].includes(metric)) continue;
    selectors.push({ metric, matchers: [], inIncrease: match[1] !== undefined });
  }
  return selectors;
}

/** PromQL's matchers on one sample; a regex matches the whole value. */
function matches(selector: Selector, sample: Sample): boolean {
  if (sample.name !== selector.metric) return false;
  return selector.matchers.every(({ name, op, value }) => {
    const actual = sample.labels[name] ?? '';
    const full = new RegExp(`^(?:${value})$`);
    return op === '=' ? actual === value : op === '!=' ? actual !== value : op === '=~' ? full.test(actual) : !full.test(actual);
  });
}

/** Every series the server's registry defines, with its label names (histograms: their _bucket, _count and _sum). */
async function exportedSeries(): Promise<Map<string, string[]>> {
  const metrics = new ServerMetrics({ keys: { signingKeyAt: () => undefined, nextSigningKeyAfter: () => undefined }, clock: Date.now });
  const series = new Map<string, string[]>(Object.entries(PROMETHEUS_SERIES));
  for (const { name, type } of await metrics.registry.getMetricsAsJSON()) {
    const metric = metrics.registry.getSingleMetric(name) as unknown as { labelNames?: string[] };
    const labels = [...(metric.labelNames ?? [])];
    if (String(type) !== 'histogram') series.set(name, labels);
    else for (const suffix of ['_count', '_sum']) series.set(`${name}${suffix}`, labels);
    if (String(type) === 'histogram') series.set(`${name}_bucket`, [...labels, 'le']);
  }
  return series;
}

t.test('deploy/prometheus/alerts.yml: every alert has a severity, a summary and a description', async (t) => {
  const rules = await shippedRules();
  t.ok(rules.length >= 10, `the alerts are found (${rules.length})`);
  for (const rule of rules) {
    t.match(rule, { alert: /^[A-Z][A-Za-z]+$/, expr: /\S/, labels: { severity: /^(critical|warning)$/ } }, rule.alert);
    t.match(
      rule.annotations,
      { summary: /\S/, description: /see docs\/[a-z-]+\.md#[a-z0-9-]+\.$/ },
      `${rule.alert} says where to read more`,
    );
  }
  t.same(
    rules.map((r) => r.alert),
    [...new Set(rules.map((r) => r.alert))],
    'no alert twice',
  );
});

t.test('every series and label an alert names is one the server exports', async (t) => {
  const exported = await exportedSeries();
  t.ok(exported.has('oauth2_tokens_issued_total') && exported.has('process_cpu_seconds_total'), 'the registry, process metrics included');
  for (const rule of await shippedRules()) {
    const selectors = selectorsOf(rule.expr);
    t.ok(selectors.length > 0, `${rule.alert} watches a series`);
    for (const { metric, matchers } of selectors) {
      const labels = exported.get(metric);
      t.ok(labels, `${rule.alert}: ${metric} is exported`);
      for (const { name } of matchers)
        t.ok([...(labels ?? []), ...TARGET_LABELS].includes(name), `${rule.alert}: ${metric} has the label ${name}`);
    }
  }
});

t.test('the selectors match the label values the server writes', async (t) => {
  const rules = new Map((await shippedRules()).map((rule) => [rule.alert, rule]));

  t.test('TokenEndpointSlow: POST /oauth2/token below an issuer path', async (t) => {
    const server = await buildTestServer(t, { clients: TEST_CLIENTS, metrics: true, env: { ISSUER: 'https://as.example.com/tenant' } });
    const res = await server.app.inject({
      method: 'POST',
      url: '/tenant/oauth2/token',
      headers: { ...FORM_HEADERS, authorization: basic('service', SECRETS.service) },
      payload: 'grant_type=client_credentials',
    });
    t.equal(res.statusCode, 200);
    t.equal((await server.app.inject({ method: 'GET', url: '/tenant/oauth2/authorize' })).statusCode, 400, 'another route');
    const { samples } = await scrape(await metricsListener(t, server.metrics));
    const [selector] = selectorsOf(rules.get('TokenEndpointSlow')?.expr ?? '');
    const watched = samples.filter((sample) => selector !== undefined && matches(selector, sample));
    t.same([...new Set(watched.map((s) => `${s.labels.method} ${s.labels.route}`))], ['POST /tenant/oauth2/token'], 'the token route only');
    t.equal(watched.find((s) => s.labels.le === '+Inf')?.value, 1);
  });

  t.test('an increase() alert watches a series that is there at 0 before its first count', async (t) => {
    const server = await buildTestServer(t, { metrics: true });
    const { samples } = await scrape(await metricsListener(t, server.metrics));
    const watched = [...rules.values()].flatMap((rule) =>
      selectorsOf(rule.expr)
        .filter((s) => s.inIncrease)
        .map((s) => ({ rule, s })),
    );
    t.same(
      watched.map(({ rule }) => rule.alert),
      ['AuthorizationCodeReplay', 'RefreshTokenReuse', 'SigningKeyReloadFailed'],
    );
    for (const { rule, s } of watched)
      t.same(
        samples.filter((sample) => matches(s, sample)).map((sample) => sample.value),
        [0],
        `${rule.alert}: ${s.metric} is exported at 0`,
      );
  });
});

t.test('the docs show the shipped rules without a copy that can drift', async (t) => {
  const rules = await shippedRules();
  const operations = await readFile(join(REPOSITORY, 'docs/operations.md'), 'utf8');
  const section = operations.slice(operations.indexOf('\n### Alerts\n'), operations.indexOf('\n## Audit events\n'));
  const table = [...section.matchAll(/^\| `([A-Za-z]+)` \| (critical|warning) \|/gm)].map(([, alert, severity]) => `${alert} ${severity}`);
  t.same(
    table,
    rules.map((r) => `${r.alert} ${r.labels.severity}`),
    'the table of docs/operations.md#alerts: every alert, in order, with its severity',
  );
  t.match(section, '](../deploy/prometheus/alerts.yml)', 'links the file');

  const docs = ['client-authentication-with-keys.md', 'operations.md'];
  for (const page of docs) {
    for (const block of fencedBlocks(await readFile(join(REPOSITORY, 'docs', page), 'utf8')).filter((b) => b.info === 'yaml')) {
      const parsed = parse(block.body.join('\n')) as unknown;
      const shown = (Array.isArray(parsed) ? parsed : []) as Partial<Rule>[];
      for (const excerpt of shown.filter((item) => item.alert !== undefined)) {
        const shipped = rules.find((rule) => rule.alert === excerpt.alert);
        const fields = Object.keys(excerpt) as (keyof Rule)[];
        t.same(
          Object.fromEntries(fields.map((field) => [field, shipped?.[field]])),
          excerpt,
          `docs/${page} line ${block.open + 1}: ${excerpt.alert} as shipped`,
        );
      }
    }
  }

  for (const rule of rules) {
    for (const [, page, anchor] of rule.annotations.description.matchAll(/docs\/([a-z-]+\.md)#([a-z0-9-]+)/g)) {
      const slugs = headingSlugs(await readFile(join(REPOSITORY, 'docs', page as string), 'utf8'));
      t.ok(slugs.includes(anchor as string), `${rule.alert}: docs/${page}#${anchor} is a heading`);
    }
  }
});
