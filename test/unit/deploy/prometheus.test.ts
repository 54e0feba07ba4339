/**
 * deploy/prometheus: the scrape configurations and rule files pass `promtool check`, the rule
 * unit tests pass `promtool test rules`, and every alert has unit tests where it fires and
 * where it must not, a severity, and a runbook section that exists.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { allRules, DEPLOY, listFiles, promtool, readText, ruleFiles } from './deploy-files';

const PROM = path.join(DEPLOY, 'prometheus');
const TESTS = listFiles(path.join(PROM, 'tests'), ['.yml', '.yaml']);

interface AlertTestCase {
  alertname: string;
  eval_time: string;
  exp_alerts?: unknown[];
}
interface RuleTestFile {
  rule_files: string[];
  tests: Array<{ name?: string; alert_rule_test?: AlertTestCase[] }>;
}

it('promtool is installed (the deployment checks need it; .ci/run installs Debian "prometheus")', () => {
  const version = promtool(['--version']);
  expect(version.status).toBe(0);
  expect(version.output).toMatch(/promtool, version \d+\./);
});

it('promtool check config accepts the docker-compose scrape configuration and finds its rule files', () => {
  const result = promtool(['check', 'config', 'deploy/prometheus/prometheus.yml']);
  expect(result.output).toContain('SUCCESS');
  expect(result.status).toBe(0);
  expect(result.output).toMatch(new RegExp(`SUCCESS: ${ruleFiles().length} rule files found`));
});

it('the compose scrape configuration discovers every API replica and ingest worker on the admin port', () => {
  const config = YAML.parse(readText('deploy/prometheus/prometheus.yml')) as {
    rule_files: string[];
    scrape_configs: Array<{
      job_name: string;
      dns_sd_configs?: Array<{ names: string[]; type: string; port: number }>;
    }>;
  };
  const jobs = new Map(config.scrape_configs.map((c) => [c.job_name, c]));
  expect(jobs.get('radar-api')?.dns_sd_configs).toEqual([
    expect.objectContaining({ names: ['api'], type: 'A', port: 9464 }),
  ]);
  expect(jobs.get('radar-ingest')?.dns_sd_configs).toEqual([
    expect.objectContaining({ names: ['ingest'], type: 'A', port: 9464 }),
  ]);
  expect(config.rule_files).toEqual(['rules/*.yml']);
});

it('the Kubernetes scrape configuration is valid apart from its pod discovery, and names the jobs the rules use', () => {
  // Debian's promtool is built without Kubernetes service discovery, so that block is checked
  // here for shape and swapped for an empty static config before promtool checks the rest
  // (relabelling, rule files, globals).
  const text = readText('deploy/prometheus/prometheus-k8s.yml');
  const config = YAML.parse(text) as {
    scrape_configs: Array<{
      job_name: string;
      kubernetes_sd_configs?: Array<{ role: string; namespaces?: { names: string[] } }>;
      static_configs?: unknown[];
      relabel_configs: Array<{
        source_labels?: string[];
        target_label?: string;
        replacement?: string;
        regex?: string;
        action?: string;
      }>;
    }>;
  };
  const job = config.scrape_configs.find((c) => c.job_name === 'radar')!;
  expect(job.kubernetes_sd_configs).toEqual([{ role: 'pod', namespaces: { names: ['radar'] } }]);
  const jobLabel = job.relabel_configs.find((r) => r.target_label === 'job')!;
  expect(jobLabel.source_labels).toEqual([
    '__meta_kubernetes_pod_label_app_kubernetes_io_component',
  ]);
  expect(jobLabel.replacement).toBe('radar-$1'); // api -> radar-api, ingest -> radar-ingest
  expect(job.relabel_configs).toContainEqual(
    expect.objectContaining({
      source_labels: ['__meta_kubernetes_pod_container_port_name'],
      regex: 'admin',
      action: 'keep',
    }),
  );

  for (const discovered of config.scrape_configs.filter((c) => c.kubernetes_sd_configs)) {
    delete discovered.kubernetes_sd_configs;
    discovered.static_configs = [...(discovered.static_configs ?? []), { targets: [] }];
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-prom-k8s-'));
  try {
    fs.cpSync(path.join(PROM, 'rules'), path.join(dir, 'rules'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'prometheus.yml'), YAML.stringify(config));
    const result = promtool(['check', 'config', path.join(dir, 'prometheus.yml')]);
    expect(result.output).toContain('SUCCESS');
    expect(result.status).toBe(0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('promtool check rules accepts every rule file', () => {
  const files = ruleFiles().map((f) => path.relative(process.cwd(), f));
  expect(files.length).toBeGreaterThanOrEqual(2);
  const result = promtool(['check', 'rules', ...files]);
  expect(result.output).not.toContain('FAILED');
  expect(result.status).toBe(0);
});

// The SLO tests replay hours of one-minute samples: about 40 s of CPU on these machines.
it('promtool test rules passes every rule unit test file', () => {
  expect(TESTS.length).toBeGreaterThanOrEqual(4);
  const result = promtool(['test', 'rules', ...TESTS]);
  expect(result.output).not.toContain('FAILED');
  expect(result.status).toBe(0);
}, 300_000);

it('the unit tests cover every rule file', () => {
  const covered = new Set(
    TESTS.flatMap((file) =>
      (YAML.parse(fs.readFileSync(file, 'utf8')) as RuleTestFile).rule_files.map((r) =>
        path.resolve(path.dirname(file), r),
      ),
    ),
  );
  for (const file of ruleFiles()) expect(covered).toContain(file);
});

describe('alerts', () => {
  const alerts = allRules().filter((r) => r.alert !== undefined);
  const cases = TESTS.flatMap((file) =>
    (YAML.parse(fs.readFileSync(file, 'utf8')) as RuleTestFile).tests.flatMap(
      (t) => t.alert_rule_test ?? [],
    ),
  );
  const runbook = readText('deploy/prometheus/runbook.md');

  it('include the ones SREs were promised', () => {
    const names = alerts.map((a) => a.alert);
    for (const required of [
      'RadarDataStale',
      'NoIngestLeader',
      'IngestRejectingArchives',
      'AvailabilityFastBurn',
      'AvailabilitySlowBurn',
      'LatencyFastBurn',
      'LatencySlowBurn',
      'FreshnessFastBurn',
      'FreshnessSlowBurn',
      'EdgeProbeFailing',
      'NginxDown',
      'RateLimiterDegraded',
      'ReplicaDown',
      'ObjectStoreUnreachable',
      'CatalogOutOfSync',
    ]) {
      expect(names).toContain(required);
    }
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(alerts.map((a) => [a.alert!, a] as const))(
    '%s has unit tests where it fires and where it does not',
    (name) => {
      const mine = cases.filter((c) => c.alertname === name);
      expect(mine.some((c) => (c.exp_alerts ?? []).length > 0)).toBe(true);
      expect(mine.some((c) => (c.exp_alerts ?? []).length === 0)).toBe(true);
    },
  );

  it.each(alerts.map((a) => [a.alert!, a] as const))(
    '%s has a severity, a summary, a description and a runbook section',
    (name, alert) => {
      expect(['critical', 'warning']).toContain(alert.labels?.severity);
      expect(alert.annotations?.summary).toBeTruthy();
      expect(alert.annotations?.description).toBeTruthy();
      expect(alert.annotations?.runbook).toBe(`deploy/prometheus/runbook.md#${name.toLowerCase()}`);
      expect(runbook).toMatch(new RegExp(`^## ${name}$`, 'm'));
    },
  );

  it('RadarDataStale uses the service staleness threshold (RADAR_STALE_AFTER_S default 600 s)', () => {
    expect(alerts.find((a) => a.alert === 'RadarDataStale')!.expr).toMatch(
      /radar_latest_age_seconds\)? > 600\b/,
    );
  });
});
