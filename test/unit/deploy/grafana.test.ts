/**
 * deploy/grafana: the provisioned datasource and dashboard provider agree with
 * docker-compose.yml, and the dashboard has the panels SREs need, well formed. (That every
 * query names exported metrics is metric-names.test.ts.)
 */
import { allPanels, dashboard, readYaml } from './deploy-files';

interface Compose {
  services: Record<string, { volumes?: string[] }>;
}

const panels = allPanels().filter((p) => p.type !== 'row');
const byTitle = (title: string) => {
  const panel = panels.find((p) => p.title === title);
  if (!panel) throw new Error(`no panel "${title}"`);
  return panel as typeof panel & {
    targets: Array<{ expr: string; datasource: { uid: string } }>;
    fieldConfig?: {
      defaults: {
        thresholds?: { steps: Array<{ value: number | null }> };
        custom?: { thresholdsStyle?: { mode: string } };
      };
    };
  };
};

it('has an id, a title, unique panel ids and unique panel titles', () => {
  const d = dashboard();
  expect(d.uid).toBe('radar-tiles');
  expect(d.title).toBe('Radar tiles');
  const ids = allPanels().map((p) => p.id);
  expect(new Set(ids).size).toBe(ids.length);
  const titles = panels.map((p) => p.title);
  expect(new Set(titles).size).toBe(titles.length);
});

it('places every panel inside the 24-column grid without overlaps', () => {
  const boxes = allPanels().map((p) => ({
    title: p.title,
    ...(p as unknown as { gridPos: { x: number; y: number; w: number; h: number } }).gridPos,
  }));
  for (const b of boxes) {
    expect(b.x).toBeGreaterThanOrEqual(0);
    expect(b.x + b.w).toBeLessThanOrEqual(24);
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i]!, boxes[j]!];
      const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
      if (overlap) throw new Error(`panels "${a.title}" and "${b.title}" overlap`);
    }
  }
});

it('queries the Prometheus datasource variable from every panel', () => {
  const variable = dashboard().templating.list.find((v) => v.name === 'datasource') as unknown as {
    type: string;
    query: string;
  };
  expect(variable).toMatchObject({ type: 'datasource', query: 'prometheus' });
  for (const panel of panels) {
    const targets = (panel.targets ?? []) as Array<{ expr?: string; datasource?: { uid: string } }>;
    expect(targets.length).toBeGreaterThan(0);
    for (const t of targets) {
      expect(t.expr).toBeTruthy();
      expect(t.datasource?.uid).toBe('${datasource}');
    }
  }
});

it.each([
  'Requests by route and status',
  'Latency p50 / p95 / p99 by route',
  'Bytes served by route',
  '429s by key tier',
  'Cache hit ratio',
  'Object store latency (time to first byte)',
  'Object store errors',
  'Latest data age',
  'Ingest lag',
  'Ingest published and rejected',
  'Rate limiter degraded',
  'In-flight requests',
  'Event loop lag p99',
  'CPU',
  'Memory (RSS, heap used)',
  'MRMS frames converted',
  'MRMS conversion time',
  'MRMS source lag',
  'MRMS failures by reason',
  'MRMS untyped frames by reason',
])('has the panel "%s"', (title) => {
  expect(byTitle(title).targets.length).toBeGreaterThan(0);
});

it('shows traffic by route template and status', () => {
  expect(byTitle('Requests by route and status').targets[0]!.expr).toMatch(
    /sum by \(route, status\) \(rate\(radar_http_requests_total/,
  );
});

it('shows latency p50, p95 and p99 from the request duration histogram', () => {
  const exprs: string[] = byTitle('Latency p50 / p95 / p99 by route').targets.map((t) =>
    String(t.expr),
  );
  for (const q of ['0.50', '0.95', '0.99']) {
    expect(
      exprs.some(
        (e) =>
          e.startsWith(`histogram_quantile(${q},`) &&
          e.includes('radar_http_request_duration_seconds_bucket'),
      ),
    ).toBe(true);
  }
});

it('shows 429s by key tier', () => {
  expect(byTitle('429s by key tier').targets[0]!.expr).toMatch(
    /sum by \(tier\) \(rate\(radar_rate_limit_decisions_total\{decision="limited"/,
  );
});

it('shows the cache hit ratio from hits and misses', () => {
  const expr = byTitle('Cache hit ratio').targets[0]!.expr;
  expect(expr).toContain('radar_archive_cache_hits_total');
  expect(expr).toContain('radar_archive_cache_misses_total');
});

it('draws the 600 s staleness threshold on the latest-data-age panel', () => {
  const panel = byTitle('Latest data age');
  expect(panel.targets[0]!.expr).toContain('radar_latest_age_seconds');
  const defaults = panel.fieldConfig!.defaults;
  expect(defaults.thresholds!.steps.map((s) => s.value)).toContain(600);
  expect(defaults.custom!.thresholdsStyle!.mode).not.toBe('off');
});

it('shows per-replica saturation: in-flight requests, event loop lag, CPU and RSS', () => {
  expect(byTitle('In-flight requests').targets[0]!.expr).toContain('radar_http_requests_in_flight');
  expect(byTitle('Event loop lag p99').targets[0]!.expr).toContain(
    'nodejs_eventloop_lag_p99_seconds',
  );
  expect(byTitle('CPU').targets[0]!.expr).toContain('process_cpu_seconds_total');
  expect(byTitle('Memory (RSS, heap used)').targets[0]!.expr).toContain(
    'process_resident_memory_bytes',
  );
});

it('shows the busiest keys of the hour by key id, fleet-wide, and the usage flushes', () => {
  const top = byTitle('Top keys by requests this UTC hour').targets[0]!.expr;
  // Every replica reports the same fleet-wide figures: max over replicas, never a sum.
  expect(top).toContain('topk(10, max by (key) (radar_usage_top_key_requests))');
  expect(
    byTitle('Usage flushes and dropped requests')
      .targets.map((t) => t.expr)
      .join(' '),
  ).toMatch(/radar_usage_flushes_total[\s\S]*radar_usage_dropped_requests_total/);
  expect(byTitle('Usage key-hours held per replica').targets[0]!.expr).toContain(
    'radar_usage_held_entries',
  );
});

it('shows the MRMS producer: conversions, conversion time, source lag against the alert line, failures', () => {
  expect(byTitle('MRMS frames converted').targets[0]!.expr).toContain(
    'radar_mrms_frames_converted_total',
  );
  expect(byTitle('MRMS conversion time').targets[0]!.expr).toContain(
    'radar_mrms_conversion_seconds_bucket',
  );
  const lag = byTitle('MRMS source lag');
  expect(lag.targets[0]!.expr).toContain('radar_mrms_source_lag_seconds');
  expect(lag.fieldConfig!.defaults.thresholds!.steps.map((s) => s.value)).toContain(420);
  expect(byTitle('MRMS failures by reason').targets[0]!.expr).toMatch(
    /sum by \(reason\) \(increase\(radar_mrms_failures_total/,
  );
});

it('shows the MRMS frames published untyped by reason, against every frame published', () => {
  const panel = byTitle('MRMS untyped frames by reason');
  const exprs = panel.targets.map((t) => t.expr);
  expect(exprs[0]).toMatch(
    /sum by \(reason\) \(increase\(radar_mrms_untyped_frames_total\[10m\]\)\)/,
  );
  expect(exprs[1]).toMatch(/sum\(increase\(radar_mrms_frames_converted_total\[10m\]\)\)/);
});

describe('provisioning', () => {
  const compose = readYaml<Compose>('docker-compose.yml');
  const mounts = compose.services.grafana!.volumes ?? [];

  it('provisions the Prometheus of docker-compose.yml as the default datasource the dashboard selects', () => {
    const ds = readYaml<{
      datasources: Array<{ uid: string; type: string; url: string; isDefault: boolean }>;
    }>('deploy/grafana/provisioning/datasources/prometheus.yml').datasources;
    expect(ds).toEqual([
      expect.objectContaining({
        type: 'prometheus',
        url: 'http://prometheus:9090',
        isDefault: true,
      }),
    ]);
    expect(Object.keys(compose.services)).toContain('prometheus');
    const variable = dashboard().templating.list.find(
      (v) => v.name === 'datasource',
    ) as unknown as { current: { value: string } };
    expect(variable.current.value).toBe(ds[0]!.uid);
  });

  it('loads dashboards from the directory docker-compose.yml mounts', () => {
    const providers = readYaml<{ providers: Array<{ type: string; options: { path: string } }> }>(
      'deploy/grafana/provisioning/dashboards/radar.yml',
    ).providers;
    expect(providers).toHaveLength(1);
    expect(mounts).toContain(`./deploy/grafana/dashboards:${providers[0]!.options.path}:ro`);
    expect(mounts).toContain('./deploy/grafana/provisioning:/etc/grafana/provisioning:ro');
  });
});
