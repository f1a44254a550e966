import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { promtool, RULES_DIR } from '../helpers/prometheus.js';

/**
 * The shipped alerting rules, checked and unit-tested by Prometheus's own promtool (Debian's
 * `prometheus` package): `promtool check rules` and `promtool test rules` on
 * deploy/prometheus/, as docs/operations.md#alerts tells operators to run them. Their
 * tests hold a firing and a not-firing case for every alert.
 */

interface AlertTest {
  alertname: string;
  exp_alerts?: unknown[];
}

const alertNames = async () =>
  (parse(await readFile(join(RULES_DIR, 'alerts.yml'), 'utf8')) as { groups: { rules: { alert: string }[] }[] }).groups.flatMap((g) =>
    g.rules.map((r) => r.alert),
  );

t.test('alerts.test.yml has a firing and a not-firing case for every alert', async (t) => {
  const tests = (parse(await readFile(join(RULES_DIR, 'alerts.test.yml'), 'utf8')) as { tests: { alert_rule_test: AlertTest[] }[] }).tests;
  const cases = tests.flatMap((test) => test.alert_rule_test);
  const names = await alertNames();
  const covered = (firing: boolean) =>
    [...new Set(cases.filter((c) => (c.exp_alerts ?? []).length > 0 === firing).map((c) => c.alertname))].sort();
  t.same(covered(true), [...names].sort(), 'firing');
  t.same(covered(false), [...names].sort(), 'not firing');
});

t.test('promtool check rules deploy/prometheus/alerts.yml', async (t) => {
  const checked = await promtool(['check', 'rules', 'alerts.yml']);
  t.same(
    [checked.code, checked.stdout, checked.stderr],
    [0, `Checking alerts.yml\n  SUCCESS: ${(await alertNames()).length} rules found\n\n`, ''],
  );
});

t.test('promtool test rules deploy/prometheus/alerts.test.yml', async (t) => {
  const tested = await promtool(['test', 'rules', 'alerts.test.yml']);
  t.same([tested.code, tested.stdout, tested.stderr], [0, 'Unit Testing:  alerts.test.yml\n  SUCCESS\n\n', '']);
});
