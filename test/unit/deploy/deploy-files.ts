/**
 * Helpers of the deployment tests (test/deploy): the repository paths of deploy/, YAML
 * parsing, promtool, and the PromQL reading the metric-name checks need.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const DEPLOY = path.join(ROOT, 'deploy');

export function repoPath(...parts: string[]): string {
  return path.join(ROOT, ...parts);
}

export function readText(...parts: string[]): string {
  return fs.readFileSync(repoPath(...parts), 'utf8');
}

/** One YAML document; merge keys (`<<: *anchor`) resolved as docker compose does. */
export function readYaml<T = unknown>(...parts: string[]): T {
  return YAML.parse(readText(...parts), { merge: true, strict: true, uniqueKeys: true }) as T;
}

/** Every document of a (multi-document) YAML file; throws on any parse error. */
export function readYamlDocuments(file: string): unknown[] {
  const docs = YAML.parseAllDocuments(fs.readFileSync(file, 'utf8'), {
    merge: true,
    strict: true,
    uniqueKeys: true,
  });
  for (const doc of docs) {
    if (doc.errors.length > 0)
      throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
  }
  return docs.map((d) => d.toJS() as unknown).filter((d) => d !== null && d !== undefined);
}

/** The files of a directory with one of `extensions`, sorted. */
export function listFiles(dir: string, extensions: string[]): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => extensions.some((e) => f.endsWith(e)))
    .sort()
    .map((f) => path.join(dir, f));
}

/**
 * The `promtool` binary. The deployment tests need it (Debian package `prometheus`, installed
 * by .ci/run); a missing promtool fails the suite rather than skipping it.
 */
export function promtoolPath(): string {
  const candidates = [process.env.PROMTOOL, 'promtool', '/usr/bin/promtool'].filter(
    (c): c is string => !!c,
  );
  for (const candidate of candidates) {
    const probe = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
    if (probe.status === 0) return candidate;
  }
  throw new Error(
    'promtool not found: install the Debian package "prometheus" (.ci/run does) or set PROMTOOL',
  );
}

export interface ToolResult {
  readonly status: number | null;
  readonly output: string;
}

/**
 * Runs promtool with `args` (and `input` on stdin) from the repository root. The SLO rule
 * tests replay hours of samples, hence the generous default bound.
 */
export function promtool(args: string[], input?: string, timeoutMs = 240_000): ToolResult {
  const run = spawnSync(promtoolPath(), args, {
    cwd: ROOT,
    encoding: 'utf8',
    input,
    timeout: timeoutMs,
  });
  if (run.error) throw run.error;
  return { status: run.status, output: `${run.stdout ?? ''}${run.stderr ?? ''}` };
}

// ---------------------------------------------------------------------------------- PromQL

const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
  'atan2',
  'start',
  'end',
]);

/** Replaces string literals, keeping the expression's shape. */
function withoutStrings(expr: string): string {
  return expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""');
}

/**
 * The metric names a PromQL expression selects: identifiers that are neither functions nor
 * aggregations (followed by `(`), keywords, numbers or durations, after removing strings,
 * label matchers, range/subquery brackets, grouping label lists and Grafana variables.
 */
export function metricNames(expr: string): string[] {
  let s = expr.replace(/#[^\n]*/g, ' ');
  s = withoutStrings(s);
  s = s.replace(/\$\{[^}]*\}|\$\w+/g, ' ');
  s = s.replace(/\{[^}]*\}/g, ' ');
  s = s.replace(/\[[^\]]*\]/g, ' ');
  s = s.replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, ' ');
  const names = new Set<string>();
  const token = /[A-Za-z_:][A-Za-z0-9_:]*|[0-9][0-9A-Za-z_.]*/g;
  for (let m = token.exec(s); m !== null; m = token.exec(s)) {
    const word = m[0];
    if (/^[0-9]/.test(word)) continue;
    if (KEYWORDS.has(word.toLowerCase())) continue;
    const rest = s.slice(m.index + word.length);
    if (/^\s*\(/.test(rest)) continue;
    names.add(word);
  }
  return [...names];
}

/**
 * Label names an expression uses: in matchers (`{route="..."}`) and in grouping clauses
 * (`by (route, le)`, `on (instance)`).
 */
export function labelNames(expr: string): string[] {
  const s = withoutStrings(expr.replace(/#[^\n]*/g, ' ')).replace(/\$\{[^}]*\}|\$\w+/g, '');
  const labels = new Set<string>();
  for (const m of s.matchAll(/\{([^}]*)\}/g)) {
    for (const part of m[1]!.split(',')) {
      const name = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)/.exec(part)?.[1];
      if (name) labels.add(name);
    }
  }
  for (const m of s.matchAll(
    /\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/gi,
  )) {
    for (const name of m[1]!
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean))
      labels.add(name);
  }
  return [...labels];
}

/** Metric families of a Prometheus text exposition: name -> type. */
export function exposedFamilies(text: string): Map<string, string> {
  const families = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^# TYPE ([A-Za-z_:][A-Za-z0-9_:]*) (\w+)$/.exec(line);
    if (m) families.set(m[1]!, m[2]!);
  }
  return families;
}

/** The series names a family exposes (histogram and summary suffixes included). */
export function seriesNames(families: Map<string, string>): Set<string> {
  const names = new Set<string>();
  for (const [name, type] of families) {
    names.add(name);
    if (type === 'histogram')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix);
  }
  return names;
}

// ----------------------------------------------------------------------- rules and dashboard

/**
 * Series of the exporters Prometheus scrapes besides the radar processes (blackbox exporter
 * job radar-probe, nginx exporter job radar-edge) that rules or the dashboard name.
 * test/stack/observability-live.test.ts checks each against the real exporters.
 */
export const EXPORTER_SERIES: readonly string[] = [
  'probe_success',
  'probe_duration_seconds',
  'probe_http_status_code',
  'nginx_up',
  'nginx_connections_active',
  'nginx_http_requests_total',
];

export interface PromRule {
  readonly record?: string;
  readonly alert?: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

export const RULES_DIR = path.join(DEPLOY, 'prometheus', 'rules');

export function ruleFiles(): string[] {
  return listFiles(RULES_DIR, ['.yml', '.yaml']);
}

export function allRules(): PromRule[] {
  return ruleFiles().flatMap((file) =>
    (
      YAML.parse(fs.readFileSync(file, 'utf8')) as { groups: Array<{ rules: PromRule[] }> }
    ).groups.flatMap((g) => g.rules),
  );
}

export interface DashboardQuery {
  readonly where: string;
  readonly expr: string;
}

interface Panel {
  id?: number;
  type: string;
  title?: string;
  targets?: Array<{ expr?: string }>;
  panels?: Panel[];
}

export const DASHBOARD_FILE = path.join(DEPLOY, 'grafana', 'dashboards', 'radar.json');

export function dashboard(): {
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query?: unknown; definition?: string }> };
  [key: string]: unknown;
} {
  return JSON.parse(fs.readFileSync(DASHBOARD_FILE, 'utf8'));
}

/** Every panel, rows' nested panels included. */
export function allPanels(): Panel[] {
  const out: Panel[] = [];
  const walk = (panels: Panel[]) => {
    for (const p of panels) {
      out.push(p);
      if (p.panels) walk(p.panels);
    }
  };
  walk(dashboard().panels);
  return out;
}

/** Every PromQL expression of the dashboard: panel targets and query variables. */
export function dashboardQueries(): DashboardQuery[] {
  const queries: DashboardQuery[] = [];
  for (const panel of allPanels()) {
    for (const target of panel.targets ?? []) {
      if (target.expr) queries.push({ where: `panel "${panel.title}"`, expr: target.expr });
    }
  }
  for (const variable of dashboard().templating.list) {
    if (variable.type !== 'query') continue;
    const raw =
      typeof variable.query === 'string'
        ? variable.query
        : (variable.query as { query: string }).query;
    // label_values(<selector>, <label>) and query_result(<expr>) wrap a PromQL selector/expression.
    const inner =
      /^\s*label_values\((.*),\s*[A-Za-z_]\w*\s*\)\s*$/s.exec(raw)?.[1] ??
      /^\s*query_result\((.*)\)\s*$/s.exec(raw)?.[1] ??
      raw;
    queries.push({ where: `variable $${variable.name}`, expr: inner });
  }
  return queries;
}

/** Grafana's variables replaced by values PromQL accepts, for syntax checks with promtool. */
export function withGrafanaVariablesResolved(expr: string): string {
  return expr
    .replace(
      /\$__rate_interval|\$__interval|\$__range|\$\{__rate_interval\}|\$\{__interval\}|\$\{__range\}/g,
      '5m',
    )
    .replace(/\$\{?instance\}?/g, '.*');
}
