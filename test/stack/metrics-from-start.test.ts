/**
 * Every metric of the service that a dashboard panel or a Prometheus rule in deploy/ names has
 * a series on `/metrics` of a fresh API replica, a fresh ingest worker or a fresh MRMS producer
 * (following an empty directory), before any request, conversion,
 * rejection or failure: `rate()`, ratios and "no data" panels see a 0, not nothing. Labelled
 * counters with a known vocabulary (store errors by kind, ingest rejections by reason, auth
 * failures by reason, limiter decisions, request statuses per route) start at 0 for every
 * value. Names come from the files, so rules and panels added later are covered as well;
 * metrics of other exporters (nginx, blackbox, Prometheus itself) and recording-rule outputs
 * are not the service's to export.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createSilentLogger } from '../../src/logger';
import { buildMrmsProducer, type RunningMrmsProducer } from '../../src/wiring/mrms';
import { declaredMetrics } from '../unit/deploy/api-registry';
import { request } from '../harness/http-client';
import { startProductionStack, type ProductionStack } from '../harness/production-stack';
import { allRules, dashboardQueries, metricNames } from '../unit/deploy/deploy-files';

jest.setTimeout(60_000);

/** Prefixes of what the radar processes export (their own metrics and prom-client's). */
const OWN = /^(radar|process|nodejs)_/;

/**
 * Series labelled by API key id: they exist once a key has been used (an idle service has no
 * busiest keys, and a placeholder key id would be a made-up label value). test/stack/usage-*
 * check them with traffic.
 */
const PER_KEY = new Set(['radar_usage_top_key_requests']);

let stack: ProductionStack;
let apiText = '';
let ingestText = '';
let mrmsText = '';
let producer: RunningMrmsProducer | undefined;
let producerDir: string | undefined;

beforeAll(async () => {
  stack = await startProductionStack({ replicas: 1 });
  const scrape = async (port: number) => {
    const res = await request(`http://127.0.0.1:${port}`, '/metrics');
    expect(res.status).toBe(200);
    return res.body.toString();
  };
  // Nothing has been asked of either process yet.
  apiText = await scrape(stack.replicas[0]!.adminPort);
  ingestText = await scrape(stack.ingest.adminPort);
  producerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-mrms-fresh-'));
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
  mrmsText = await scrape(producer.adminPort);
});
afterAll(async () => {
  await producer?.shutdown();
  if (producerDir) fs.rmSync(producerDir, { recursive: true, force: true });
  await stack?.stop();
});

/** Names with at least one sample line in an exposition. */
function sampled(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_:][A-Za-z0-9_:]*)(\{|\s)/.exec(line);
    if (m) names.add(m[1]!);
  }
  return names;
}

function namedInDeploy(): Map<string, string[]> {
  const where = new Map<string, string[]>();
  const add = (name: string, at: string) => where.set(name, [...(where.get(name) ?? []), at]);
  for (const rule of allRules())
    for (const name of metricNames(rule.expr)) add(name, rule.record ?? rule.alert ?? '?');
  for (const q of dashboardQueries()) for (const name of metricNames(q.expr)) add(name, q.where);
  return where;
}

it('every service metric named by a rule or a dashboard panel has a series on a fresh process', () => {
  const named = namedInDeploy();
  const own = [...named.keys()].filter((name) => OWN.test(name) && !PER_KEY.has(name));
  expect(own.length).toBeGreaterThan(15);
  const exported = new Set([...sampled(apiText), ...sampled(ingestText), ...sampled(mrmsText)]);
  const missing = own
    .filter((name) => !exported.has(name))
    .map((name) => `${name} (${named.get(name)!.slice(0, 2).join(', ')})`);
  expect(missing).toEqual([]);
});

it('every labelled counter of the service starts with its whole known vocabulary at 0', () => {
  // Each counter family with labels: its series on a fresh process, all at 0.
  const registry = declaredMetrics();
  const families = registry
    .getMetricsAsArray()
    .map((m) => m as unknown as { name: string; labelNames?: string[]; type?: string })
    .filter((m) => (m.labelNames?.length ?? 0) > 0 && m.name.endsWith('_total'));
  const text = `${apiText}\n${ingestText}\n${mrmsText}`;
  const empty: string[] = [];
  for (const family of families) {
    const series = text.split('\n').filter((line) => line.startsWith(`${family.name}{`));
    if (series.length === 0) empty.push(family.name);
    for (const line of series) expect([line, Number(line.split(' ').pop())]).toEqual([line, 0]);
  }
  expect(empty).toEqual([]);
});

it('the vocabularies SREs filter on are there from the start', () => {
  for (const kind of ['not_found', 'unavailable'])
    expect(apiText).toContain(
      `radar_object_store_errors_total{operation="get_range",kind="${kind}"} 0`,
    );
  for (const reason of ['unknown-key', 'malformed-key', 'app-not-bound', 'key-disabled'])
    expect(apiText).toContain(`radar_auth_failures_total{reason="${reason}"} 0`);
  for (const decision of ['allowed', 'limited'])
    expect(apiText).toContain(
      `radar_rate_limit_decisions_total{decision="${decision}",tier="1200"} 0`,
    );
  for (const reason of ['bad-name', 'bad-magic', 'truncated'])
    expect(ingestText).toContain(`radar_ingest_rejected_total{reason="${reason}"} 0`);
  for (const status of ['200', '503'])
    expect(apiText).toContain(
      `radar_http_requests_total{route="/tiles/:timestamp.pmtiles",method="GET",status="${status}"} 0`,
    );
});
