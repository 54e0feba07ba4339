/**
 * deploy/alertmanager and deploy/blackbox: the shipped configurations pass their tools' own
 * checks (`amtool check-config`, `prometheus-blackbox-exporter --config.check`), Alertmanager
 * routes pages and tickets by severity (`amtool config routes test`), every inhibition names
 * alerts that exist, and both Prometheus configurations send alerts to Alertmanager.
 */
import { spawnSync } from 'node:child_process';
import YAML from 'yaml';
import { allRules, readText, repoPath } from './deploy-files';

const AM_CONFIG = repoPath('deploy', 'alertmanager', 'alertmanager.yml');
const BLACKBOX_CONFIG = repoPath('deploy', 'blackbox', 'blackbox.yml');

/** Runs a Debian tool; a missing tool fails the test (.ci/run installs the packages). */
function run(command: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
  if (result.error)
    throw new Error(
      `${command}: ${result.error.message} (install it: scripts/install-test-tools.sh)`,
    );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

interface AmConfig {
  route: { receiver: string; group_by: string[]; routes: Array<{ receiver: string }> };
  inhibit_rules: Array<{
    source_matchers: string[];
    target_matchers: string[];
    equal?: string[];
  }>;
  receivers: Array<{ name: string; webhook_configs?: Array<{ send_resolved?: boolean }> }>;
}
const am = YAML.parse(readText('deploy/alertmanager/alertmanager.yml')) as AmConfig;
const alertNames = new Set(allRules().flatMap((r) => (r.alert ? [r.alert] : [])));

it('amtool check-config accepts the Alertmanager configuration', () => {
  const result = run('amtool', ['check-config', AM_CONFIG]);
  expect(result.output).toContain('SUCCESS');
  expect(result.status).toBe(0);
});

it('the blackbox exporter accepts its configuration (--config.check)', () => {
  const result = run('prometheus-blackbox-exporter', [
    `--config.file=${BLACKBOX_CONFIG}`,
    '--config.check',
  ]);
  expect(result.output).toContain('Config file is ok');
  expect(result.output).not.toMatch(/level=(warn|error)/);
  expect(result.status).toBe(0);
});

it.each([
  [['severity=critical', 'alertname=AvailabilityFastBurn', 'slo=availability'], 'page'],
  [['severity=critical', 'alertname=ObjectStoreUnreachable'], 'page'],
  [['severity=warning', 'alertname=AvailabilitySlowBurn', 'slo=availability'], 'ticket'],
  [['severity=warning', 'alertname=ReplicaDown'], 'ticket'],
])('routes %j to %s', (labels, receiver) => {
  const result = run('amtool', [
    'config',
    'routes',
    'test',
    `--config.file=${AM_CONFIG}`,
    ...labels,
  ]);
  expect(result.status).toBe(0);
  expect(result.output.split('\n')[0]!.trim()).toBe(receiver);
});

it('every alert has a severity the routes know, and groups by alert (and SLO)', () => {
  for (const rule of allRules().filter((r) => r.alert))
    expect([rule.alert, rule.labels?.severity]).toEqual([
      rule.alert,
      expect.stringMatching(/^(critical|warning)$/),
    ]);
  expect(am.route.group_by).toEqual(['alertname', 'slo']);
  expect(am.receivers.map((r) => r.name).sort()).toEqual(['page', 'ticket']);
  for (const receiver of am.receivers)
    for (const hook of receiver.webhook_configs ?? []) expect(hook.send_resolved).toBe(true);
});

it('inhibits the symptoms ApiDown and ObjectStoreUnreachable explain, naming only real alerts', () => {
  const named = (matchers: string[]) =>
    matchers.flatMap((m) => {
      const match = /^alertname=~?"(.*)"$/.exec(m);
      return match ? match[1]!.split('|').filter((n) => !n.includes('*')) : [];
    });
  for (const rule of am.inhibit_rules)
    for (const name of [...named(rule.source_matchers), ...named(rule.target_matchers)])
      expect(alertNames).toContain(name);
  const targetsOf = (source: string) =>
    named(
      am.inhibit_rules.find((r) => r.source_matchers.includes(`alertname="${source}"`))!
        .target_matchers,
    );
  expect(targetsOf('ApiDown')).toEqual(
    expect.arrayContaining(['ReplicaDown', 'AvailabilityFastBurn', 'EdgeProbeFailing']),
  );
  expect(targetsOf('ObjectStoreUnreachable')).toEqual(
    expect.arrayContaining(['AvailabilityFastBurn', 'LatencyFastBurn', 'EdgeProbeFailing']),
  );
  // A cause never silences itself or another cause.
  expect(targetsOf('ApiDown')).not.toContain('ObjectStoreUnreachable');
  expect(targetsOf('ObjectStoreUnreachable')).not.toContain('ApiDown');
});

it('both Prometheus configurations send alerts to Alertmanager', () => {
  for (const file of ['prometheus.yml', 'prometheus-k8s.yml']) {
    const config = YAML.parse(readText('deploy', 'prometheus', file)) as {
      alerting?: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> };
    };
    const targets = config.alerting?.alertmanagers.flatMap((a) =>
      a.static_configs.flatMap((s) => s.targets),
    );
    expect([file, targets?.length]).toEqual([file, 1]);
    expect(targets![0]).toMatch(/alertmanager.*:9093$/);
  }
});
