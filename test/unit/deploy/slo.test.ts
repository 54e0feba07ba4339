/**
 * The SLO rules keep their promises statically: every SLO records its objective, its budget
 * and its error ratio over every window the alerts and the dashboard use; each has a paging
 * and a ticketing multiwindow, multi-burn-rate alert whose thresholds are burn factor x the
 * recorded budget; and docs/slo.md states the same objectives. (promtool runs the rules'
 * behaviour tests in prometheus.test.ts; test/stack/observability-live.test.ts runs them live.)
 */
import fs from 'node:fs';
import YAML from 'yaml';
import { RULES_DIR, readText, type PromRule } from './deploy-files';

interface Group {
  name: string;
  interval?: string;
  rules: PromRule[];
}
const groupsOf = (file: string): Group[] =>
  (YAML.parse(fs.readFileSync(`${RULES_DIR}/${file}`, 'utf8')) as { groups: Group[] }).groups;

const sloGroups = [...groupsOf('radar-slo.yml'), ...groupsOf('radar-slo-budget.yml')];
const sloRules = sloGroups.flatMap((g) => g.rules);
const alerts = groupsOf('radar-slo-alerts.yml').flatMap((g) => g.rules);

const SLOS = { availability: 'Availability', latency: 'Latency', freshness: 'Freshness' };
const ALERT_WINDOWS = ['5m', '30m', '1h', '2h', '6h', '1d', '3d'];

/** The `slo` label of a rule: from its labels, or from the selector of a derived rule. */
function sloOf(rule: PromRule): string | undefined {
  return rule.labels?.slo ?? /\{slo="(\w+)"\}/.exec(rule.expr)?.[1];
}
function recorded(name: string, slo: string): PromRule | undefined {
  return sloRules.find((r) => r.record === name && sloOf(r) === slo);
}
function objective(slo: string): number {
  const rule = recorded('slo:objective:ratio', slo)!;
  return Number(/^vector\(([0-9.]+)\)$/.exec(rule.expr.trim())![1]);
}

it('the SLO groups run at the global evaluation interval (so a test can shorten it)', () => {
  for (const group of [...sloGroups, ...groupsOf('radar-slo-alerts.yml')])
    expect([group.name, group.interval]).toEqual([group.name, undefined]);
});

describe.each(Object.entries(SLOS))('SLO %s', (slo, title) => {
  it('records its objective and its error budget (1 - objective)', () => {
    const target = objective(slo);
    expect(target).toBeGreaterThan(0.9);
    expect(target).toBeLessThan(1);
    expect(recorded('slo:error_budget:ratio', slo)!.expr.trim()).toBe(`vector(1 - ${target})`);
  });

  it.each([...ALERT_WINDOWS, '30d'])('records its error ratio over %s', (window) => {
    const rule = recorded(`slo:sli_error:ratio_rate${window}`, slo);
    expect(rule).toBeDefined();
    // The window in the name is the window in the expression.
    expect(rule!.expr).toContain(`[${window}]`);
    expect(rule!.expr).not.toMatch(new RegExp(`\\[(?!${window}\\])[0-9]+[smhd]\\]`));
  });

  it.each([
    [
      'FastBurn',
      'critical',
      [
        ['1h', '5m', 14.4],
        ['6h', '30m', 6],
      ],
    ],
    [
      'SlowBurn',
      'warning',
      [
        ['1d', '2h', 3],
        ['3d', '6h', 1],
      ],
    ],
  ] as const)('%s alerts (%s) on both window pairs at burn x budget', (kind, severity, pairs) => {
    const alert = alerts.find((a) => a.alert === `${title}${kind}`)!;
    expect(alert).toBeDefined();
    expect(alert.labels).toEqual({ severity, slo });
    expect(alert.for).toBeUndefined();
    const budget = Number((1 - objective(slo)).toFixed(6));
    const conditions = [
      ...alert.expr.matchAll(
        /slo:sli_error:ratio_rate(\w+)\{slo="(\w+)"\} > \(([0-9.]+) \* ([0-9.]+)\)/g,
      ),
    ].map((m) => ({ window: m[1]!, slo: m[2]!, burn: Number(m[3]), budget: Number(m[4]) }));
    expect(conditions).toEqual(
      pairs.flatMap(([long, short, burn]) => [
        { window: long, slo, burn, budget },
        { window: short, slo, burn, budget },
      ]),
    );
    // Long and short window of a pair are joined by `and`, the pairs by `or`.
    expect(alert.expr.match(/\band\b/g)).toHaveLength(2);
    expect(alert.expr.match(/\bor\b/g)).toHaveLength(1);
  });

  it('is written down in docs/slo.md with its objective', () => {
    const doc = readText('docs', 'slo.md');
    const percent = `${Number((objective(slo) * 100).toFixed(3))}%`;
    expect(doc).toMatch(new RegExp(`^#+ .*${title}`, 'mi'));
    expect(doc).toContain(percent);
  });
});

it('the budget row has burn rates and the budget left for every SLO', () => {
  for (const name of [
    'slo:burn_rate:ratio_rate5m',
    'slo:burn_rate:ratio_rate1h',
    'slo:burn_rate:ratio_rate6h',
    'slo:burn_rate:ratio_rate1d',
    'slo:burn_rate:ratio_rate3d',
    'slo:burn_rate:ratio_rate30d',
    'slo:period_error_budget_remaining:ratio',
  ])
    expect(sloRules.some((r) => r.record === name)).toBe(true);
});
