/**
 * The shipped observability configurations (deploy/prometheus, deploy/alertmanager,
 * deploy/blackbox) rendered for a local run: compose host names become loopback ports, and
 * time is compressed by a factor so a live test sees in minutes what production sees in an
 * hour. Only addresses, intervals and durations change; every expression, threshold, route,
 * inhibition and probe module is used as shipped. A compose host name left over after
 * rendering is an error, so a job the test does not know about cannot be silently dropped.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

export const DEPLOY_DIR = path.resolve(__dirname, '../../deploy');

const UNIT_SECONDS: Record<string, number> = {
  s: 1,
  m: 60,
  h: 3600,
  d: 86400,
  w: 7 * 86400,
  y: 365 * 86400,
};

/** `duration / factor` as whole seconds (at least `minSeconds`). */
export function scaleDuration(duration: string, factor: number, minSeconds = 1): string {
  const m = /^([0-9]+)([smhdwy])$/.exec(duration.trim());
  if (!m) throw new Error(`cannot scale duration "${duration}"`);
  const seconds = (Number(m[1]) * UNIT_SECONDS[m[2]!]!) / factor;
  return `${Math.max(minSeconds, Math.round(seconds))}s`;
}

/** Every range `[5m]` and `offset 15m` of a PromQL expression divided by `factor`. */
export function scaleExpression(expr: string, factor: number): string {
  return expr
    .replace(/\[([0-9]+[smhdwy])\]/g, (_all, d: string) => `[${scaleDuration(d, factor)}]`)
    .replace(
      /\boffset\s+([0-9]+[smhdwy])\b/g,
      (_all, d: string) => `offset ${scaleDuration(d, factor)}`,
    );
}

interface RuleFile {
  groups: Array<{
    name: string;
    interval?: string;
    rules: Array<{ expr: string; for?: string; keep_firing_for?: string }>;
  }>;
}

/** Writes every rule file of deploy/prometheus/rules into `dir`, time-scaled. */
export function writeScaledRules(dir: string, factor: number): string[] {
  const source = path.join(DEPLOY_DIR, 'prometheus', 'rules');
  fs.mkdirSync(dir, { recursive: true });
  return fs
    .readdirSync(source)
    .filter((f) => f.endsWith('.yml'))
    .map((file) => {
      const rules = YAML.parse(fs.readFileSync(path.join(source, file), 'utf8')) as RuleFile;
      for (const group of rules.groups) {
        if (group.interval) group.interval = scaleDuration(group.interval, factor);
        for (const rule of group.rules) {
          rule.expr = scaleExpression(rule.expr, factor);
          if (rule.for) rule.for = scaleDuration(rule.for, factor);
          if (rule.keep_firing_for)
            rule.keep_firing_for = scaleDuration(rule.keep_firing_for, factor);
        }
      }
      const out = path.join(dir, file);
      fs.writeFileSync(out, YAML.stringify(rules));
      return out;
    });
}

export interface LocalAddresses {
  /** Admin listeners (`127.0.0.1:port`) of the API replicas, the ingest worker, the MRMS producer. */
  readonly apiTargets: readonly string[];
  readonly ingestTargets: readonly string[];
  readonly mrmsTargets: readonly string[];
  /** nginx's public URL (`http://127.0.0.1:port`). */
  readonly edgeUrl: string;
  readonly alertmanager: string;
  readonly blackbox: string;
  readonly nginxExporter: string;
  readonly probeTargets: string;
  readonly prometheus: string;
}

/** The compose names of deploy/prometheus/prometheus.yml and what they become locally. */
function hostMap(a: LocalAddresses): Array<[string, string]> {
  return [
    ['http://nginx:8080', a.edgeUrl],
    ['http://probe-targets:9465', `http://${a.probeTargets}`],
    ['alertmanager:9093', a.alertmanager],
    ['blackbox:9115', a.blackbox],
    ['nginx:9113', a.nginxExporter],
    ['localhost:9090', a.prometheus],
  ];
}

interface ScrapeConfig {
  job_name: string;
  scrape_interval?: string;
  scrape_timeout?: string;
  dns_sd_configs?: Array<{ names: string[] }>;
  static_configs?: Array<{ targets: string[]; labels?: Record<string, string> }>;
  http_sd_configs?: Array<{ url: string; refresh_interval?: string }>;
}
interface PromConfig {
  global: Record<string, unknown>;
  rule_files: string[];
  scrape_configs: ScrapeConfig[];
  [key: string]: unknown;
}

/**
 * deploy/prometheus/prometheus.yml for local processes: DNS discovery of `api`/`ingest`
 * becomes the given admin targets, compose hosts become loopback addresses, rule files the
 * time-scaled copies, and every interval `scrapeSeconds` (probes: twice that, so the blackbox
 * exporter keeps a usable timeout).
 */
export function renderPrometheusConfig(
  a: LocalAddresses,
  ruleDir: string,
  scrapeSeconds: number,
): string {
  const config = YAML.parse(
    fs.readFileSync(path.join(DEPLOY_DIR, 'prometheus', 'prometheus.yml'), 'utf8'),
  ) as PromConfig;
  config.global.scrape_interval = `${scrapeSeconds}s`;
  config.global.scrape_timeout = `${scrapeSeconds}s`;
  config.global.evaluation_interval = `${scrapeSeconds}s`;
  config.rule_files = [path.join(ruleDir, '*.yml')];
  for (const job of config.scrape_configs) {
    const discovered = job.dns_sd_configs?.flatMap((d) => d.names) ?? [];
    if (discovered.length > 0) {
      const targets = discovered.flatMap((name) => {
        if (name === 'api') return a.apiTargets;
        if (name === 'ingest') return a.ingestTargets;
        if (name === 'mrms') return a.mrmsTargets;
        throw new Error(`prometheus.yml: unknown DNS name ${name} in job ${job.job_name}`);
      });
      delete job.dns_sd_configs;
      job.static_configs = [{ targets: [...targets] }];
    }
    if (job.scrape_interval) {
      job.scrape_interval = `${2 * scrapeSeconds}s`;
      job.scrape_timeout = `${2 * scrapeSeconds}s`;
    }
    for (const sd of job.http_sd_configs ?? []) sd.refresh_interval = `${2 * scrapeSeconds}s`;
  }
  let text = YAML.stringify(config);
  for (const [from, to] of hostMap(a)) text = text.split(from).join(to);
  const leftover =
    /\b(nginx|api|ingest|alertmanager|blackbox|probe-targets|minio|redis):[0-9]+/.exec(text);
  if (leftover) throw new Error(`prometheus.yml: no local address for ${leftover[0]}`);
  return text;
}

/**
 * deploy/alertmanager/alertmanager.yml with its receivers pointed at `webhookUrl` (`/page`,
 * `/ticket`) and its grouping waits shortened; routes and inhibitions as shipped.
 */
export function renderAlertmanagerConfig(webhookUrl: string): string {
  const config = YAML.parse(
    fs.readFileSync(path.join(DEPLOY_DIR, 'alertmanager', 'alertmanager.yml'), 'utf8'),
  ) as {
    route: { group_wait: string; group_interval: string };
    receivers: Array<{ name: string; webhook_configs?: Array<{ url: string }> }>;
  };
  config.route.group_wait = '1s';
  config.route.group_interval = '2s';
  for (const receiver of config.receivers) {
    if (!receiver.webhook_configs) throw new Error(`receiver ${receiver.name}: not a webhook`);
    for (const hook of receiver.webhook_configs) hook.url = `${webhookUrl}/${receiver.name}`;
  }
  return YAML.stringify(config);
}

/** deploy/blackbox/blackbox.yml with the probe key read from `keyFile`. */
export function renderBlackboxConfig(keyFile: string): string {
  const text = fs.readFileSync(path.join(DEPLOY_DIR, 'blackbox', 'blackbox.yml'), 'utf8');
  const shipped = '/run/secrets/radar_probe_key';
  if (!text.includes(shipped)) throw new Error(`blackbox.yml: no ${shipped}`);
  return text.split(shipped).join(keyFile);
}
