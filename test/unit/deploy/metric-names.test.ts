/**
 * Every panel of the Grafana dashboard and every rule names only metrics the service really
 * exports: the names come from scraping `/metrics` of a running API replica, a running ingest
 * worker (production wiring: Redis and an S3 endpoint) and a running MRMS producer (following
 * an empty local directory), plus the recording rules' outputs and Prometheus' own `up`. The
 * scraped expositions also pass `promtool check metrics`.
 */
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import YAML from 'yaml';
import { TIMESTAMPS_KEY } from '../../../src/adapters/redis/keys';
import { declaredMetrics } from './api-registry';
import { buildArchive } from '../../fixtures/archives';
import { request } from '../../harness/http-client';
import {
  startProductionStack,
  stackAuth,
  STACK_KEYS,
  type ProductionStack,
} from '../../harness/production-stack';
import { waitFor } from '../../harness/wait';
import {
  allRules,
  dashboardQueries,
  EXPORTER_SERIES,
  exposedFamilies,
  labelNames,
  metricNames,
  promtool,
  seriesNames,
  withGrafanaVariablesResolved,
} from './deploy-files';
import { recentTimestamp } from '../../harness/timestamps';
import { loadConfig } from '../../../src/config';
import { createSilentLogger } from '../../../src/logger';
import { buildMrmsProducer, type RunningMrmsProducer } from '../../../src/wiring/mrms';

jest.setTimeout(60_000);

let stack: ProductionStack;
let apiText = '';
let ingestText = '';
let mrmsText = '';
let producer: RunningMrmsProducer | undefined;
let producerDir: string | undefined;

const timestamp = recentTimestamp();

beforeAll(async () => {
  stack = await startProductionStack({ replicas: 1 });
  // Something to publish, something to reject: the labelled ingest series exist then.
  await stack.s3.put(`${timestamp}.pmtiles`, buildArchive(timestamp, 2));
  await stack.s3.put(
    '202001010000.pmtiles',
    Buffer.from('not a pmtiles archive at all, but long enough to read'),
  );
  await waitFor(
    async () => (await stack.client.zscore(TIMESTAMPS_KEY, timestamp)) !== null,
    15_000,
    'published',
  );

  // Traffic with the statuses SREs watch: 200, 206, 304, 404, 401, 429.
  const api = stack.baseUrls[0]!;
  await waitFor(
    async () => (await request(api, '/status.json', { headers: stackAuth() })).status === 200,
    10_000,
    'listed',
  );
  const tile = `/tiles/${timestamp}.pmtiles`;
  const head = await request(api, tile, { method: 'HEAD', headers: stackAuth() });
  await request(api, tile, { headers: { ...stackAuth(), Range: 'bytes=0-16383' } });
  await request(api, tile, {
    headers: { ...stackAuth(), 'If-None-Match': String(head.headers.etag) },
  });
  await request(api, '/tiles/209901011200.pmtiles', { headers: stackAuth() });
  await request(api, '/no/such/path', { headers: stackAuth() });
  await request(api, '/status.json', { headers: stackAuth('rk_unknown-key-000000') });
  for (let i = 0; i < 12; i++)
    await request(api, '/status.json', { headers: stackAuth(STACK_KEYS.ten) });

  const scrape = async (port: number) => {
    const res = await request(`http://127.0.0.1:${port}`, '/metrics');
    expect(res.status).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^text\/plain/);
    return res.body.toString();
  };
  apiText = await scrape(stack.replicas[0]!.adminPort);
  await waitFor(
    async () => /^radar_ingest_rejected_total\{/m.test(await scrape(stack.ingest.adminPort)),
    15_000,
    'rejection counted',
  );
  ingestText = await scrape(stack.ingest.adminPort);

  producerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-mrms-metrics-'));
  fs.mkdirSync(path.join(producerDir, 'feed'));
  producer = await buildMrmsProducer(
    loadConfig({
      ADMIN_PORT: '0',
      RADAR_DATA_DIR: path.join(producerDir, 'data'),
      MRMS_SOURCE: path.join(producerDir, 'feed'),
      LOG_LEVEL: 'silent',
    }),
    { logger: createSilentLogger() },
  );
  await producer.firstPass;
  mrmsText = await scrape(producer.adminPort);
});
afterAll(async () => {
  await producer?.shutdown();
  if (producerDir) fs.rmSync(producerDir, { recursive: true, force: true });
  await stack?.stop();
});

/**
 * Names a query may use: scraped series names, recording-rule outputs, `up`, the series of
 * the blackbox and nginx exporters (checked against the real exporters by the live e2e test).
 */
function knownNames(): Set<string> {
  const known = new Set([
    ...seriesNames(exposedFamilies(apiText)),
    ...seriesNames(exposedFamilies(ingestText)),
    ...seriesNames(exposedFamilies(mrmsText)),
    ...EXPORTER_SERIES,
  ]);
  for (const rule of allRules()) if (rule.record) known.add(rule.record);
  known.add('up');
  return known;
}

/**
 * Label names any radar metric defines (from the registries), plus the target labels (`probe`
 * is set on the blackbox targets in prometheus.yml) and the SLO rules' `slo` label.
 */
async function knownLabels(): Promise<Set<string>> {
  const registry = declaredMetrics();
  const labels = new Set(['job', 'instance', 'le', 'quantile', 'pod', 'namespace', 'probe', 'slo']);
  for (const metric of registry.getMetricsAsArray()) {
    for (const name of (metric as unknown as { labelNames?: string[] }).labelNames ?? [])
      labels.add(name);
  }
  return labels;
}

it('the API replica and the ingest worker both export metrics on the admin port', () => {
  const api = exposedFamilies(apiText);
  const ingest = exposedFamilies(ingestText);
  expect(api.get('radar_http_requests_total')).toBe('counter');
  expect(api.get('radar_http_request_duration_seconds')).toBe('histogram');
  expect(api.get('radar_latest_age_seconds')).toBe('gauge');
  expect(api.get('radar_forecast_age_seconds')).toBe('gauge');
  expect(api.get('radar_forecast_frames_listed')).toBe('gauge');
  expect(api.get('process_cpu_seconds_total')).toBe('counter');
  expect(ingest.get('radar_ingest_leader')).toBe('gauge');
  expect(ingest.get('radar_ingest_rejected_total')).toBe('counter');
  expect(ingest.get('radar_ingest_lag_seconds')).toBe('histogram');
  // Statuses SREs watch are visible as labels, by route template, never by raw path.
  for (const status of ['200', '206', '304', '404', '429'])
    expect(apiText).toContain(`status="${status}"`);
  expect(apiText).toContain('route="/tiles/:timestamp.pmtiles"');
  expect(apiText).not.toContain(timestamp);
});

it('promtool check metrics passes on the API replica exposition', () => {
  const result = promtool(['check', 'metrics'], apiText);
  expect(result.output).toBe('');
  expect(result.status).toBe(0);
});

it('the MRMS producer exports its metrics on the admin port, failures by reason from 0', () => {
  const mrms = exposedFamilies(mrmsText);
  expect(mrms.get('radar_mrms_frames_converted_total')).toBe('counter');
  expect(mrms.get('radar_mrms_frames_skipped_total')).toBe('counter');
  expect(mrms.get('radar_mrms_conversion_seconds')).toBe('histogram');
  expect(mrms.get('radar_mrms_source_lag_seconds')).toBe('gauge');
  expect(mrms.get('radar_mrms_leader')).toBe('gauge');
  for (const reason of ['source', 'bad-file', 'not-reflectivity', 'conversion', 'sink'])
    expect(mrmsText).toContain(`radar_mrms_failures_total{reason="${reason}"} 0`);
  expect(mrmsText).toContain('radar_mrms_source_lag_seconds +Inf');
  expect(mrms.get('process_cpu_seconds_total')).toBe('counter');
});

it('promtool check metrics passes on the MRMS producer exposition', () => {
  const result = promtool(['check', 'metrics'], mrmsText);
  expect(result.output).toBe('');
  expect(result.status).toBe(0);
});

it('promtool check metrics passes on the ingest worker exposition', () => {
  const result = promtool(['check', 'metrics'], ingestText);
  expect(result.output).toBe('');
  expect(result.status).toBe(0);
});

it('every rule expression names only exported metrics, recording-rule outputs or up', () => {
  const known = knownNames();
  const unknown: string[] = [];
  for (const rule of allRules()) {
    const names = metricNames(rule.expr);
    // Constants (the SLO objectives, `vector(0.999)`) are the only rules without a metric.
    if (!/^\s*vector\([^)]*\)\s*$/.test(rule.expr)) expect(names.length).toBeGreaterThan(0);
    for (const name of names)
      if (!known.has(name)) unknown.push(`${rule.record ?? rule.alert}: ${name}`);
  }
  expect(unknown).toEqual([]);
});

it('every dashboard query names only exported metrics, recording-rule outputs or up', () => {
  const known = knownNames();
  const queries = dashboardQueries();
  expect(queries.length).toBeGreaterThan(20);
  const unknown: string[] = [];
  for (const q of queries) {
    const names = metricNames(q.expr);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) if (!known.has(name)) unknown.push(`${q.where}: ${name}`);
  }
  expect(unknown).toEqual([]);
});

it('rules and dashboard queries use only label names the metrics define', async () => {
  const labels = await knownLabels();
  const expressions = [
    ...allRules().map((r) => ({ where: r.record ?? r.alert!, expr: r.expr })),
    ...dashboardQueries(),
  ];
  const unknown = expressions.flatMap((e) =>
    labelNames(e.expr)
      .filter((l) => !labels.has(l))
      .map((l) => `${e.where}: ${l}`),
  );
  expect(unknown).toEqual([]);
});

it('every dashboard query is valid PromQL (promtool check rules on them as recording rules)', () => {
  const rules = dashboardQueries().map((q, i) => ({
    record: `dashboard:query_${i}`,
    expr: withGrafanaVariablesResolved(q.expr),
  }));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-dash-'));
  try {
    const file = path.join(dir, 'dashboard-queries.yml');
    fs.writeFileSync(file, YAML.stringify({ groups: [{ name: 'dashboard', rules }] }));
    const result = promtool(['check', 'rules', file]);
    expect(result.output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(result.status).toBe(0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('the metric-name reader ignores functions, keywords, labels, durations and Grafana variables', () => {
  expect(
    metricNames(
      'sum by (job, reason) ((a_total{x="y"} > 0) unless (a_total offset 15m)) or on (job) vector(0) ' +
        '/ histogram_quantile(0.99, sum by (le) (rate(b_bucket{instance=~"$instance"}[$__rate_interval]))) and c:d:e',
    ).sort(),
  ).toEqual(['a_total', 'b_bucket', 'c:d:e']);
  expect(
    labelNames('sum by (route, le) (rate(x{status=~"5..", kind!="not_found"}[5m]))').sort(),
  ).toEqual(['kind', 'le', 'route', 'status']);
});
