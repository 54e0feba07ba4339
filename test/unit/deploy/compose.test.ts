/**
 * docker-compose.yml, checked statically (no Docker engine on these machines): it parses, has
 * the services of the operations contract, references only pinned public images or the
 * project's own image, only the ports the project defines, only configuration variables of
 * src/config.ts for the project's containers, and files that exist.
 */
import fs from 'node:fs';
import { CONFIG_VARIABLES } from '../../../src/config';
import { readText, readYaml, repoPath } from './deploy-files';

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[] | string;
  entrypoint?: string[] | string;
  environment?: Record<string, string | number | null>;
  ports?: string[];
  expose?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  deploy?: { replicas?: number };
  profiles?: string[];
  healthcheck?: { test?: string[]; disable?: boolean };
  stop_grace_period?: string;
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const compose = readYaml<Compose>('docker-compose.yml');
const services = Object.entries(compose.services);
const PROJECT_IMAGE = /^radar-tiles:[\w.-]+$/;
/** Public images, by repository; each must carry an explicit, non-latest tag. */
const PUBLIC_IMAGES = [
  'nginx',
  'redis',
  'quay.io/minio/minio',
  'quay.io/minio/mc',
  'prom/prometheus',
  'prom/alertmanager',
  'prom/blackbox-exporter',
  'nginx/nginx-prometheus-exporter',
  'grafana/grafana',
];
/**
 * Ports the project defines: API, admin, Redis, MinIO API and console, Prometheus, Grafana,
 * Alertmanager, blackbox exporter, probe-targets.
 */
const PORTS = new Set([8080, 9464, 6379, 9000, 9001, 9090, 3000, 9093, 9115, 9465]);
const project = services.filter(([, s]) => PROJECT_IMAGE.test(s.image ?? ''));

function containerPort(mapping: string): number {
  // "8080", "8080:8080", "127.0.0.1:9001:9001", optionally "/tcp".
  const parts = mapping.replace(/\/(tcp|udp)$/, '').split(':');
  return Number(parts[parts.length - 1]);
}
function hostPort(mapping: string): number | undefined {
  const parts = mapping.replace(/\/(tcp|udp)$/, '').split(':');
  return parts.length >= 2 ? Number(parts[parts.length - 2]) : undefined;
}
function words(value: string[] | string | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : value.split(/\s+/);
}

it('has the services of the operations contract', () => {
  expect(Object.keys(compose.services).sort()).toEqual(
    [
      'alertmanager',
      'api',
      'blackbox',
      'createbuckets',
      'grafana',
      'ingest',
      'minio',
      'mrms',
      'nginx',
      'nginx-exporter',
      'probe-targets',
      'prometheus',
      'redis',
      'simulator',
    ].sort(),
  );
});

it('runs 3 API replicas, 1-2 ingest workers, and a producer the operator chooses by profile', () => {
  expect(compose.services.api!.deploy?.replicas).toBe(3);
  expect(compose.services.ingest!.deploy?.replicas ?? 1).toBeGreaterThanOrEqual(1);
  expect(compose.services.ingest!.deploy?.replicas ?? 1).toBeLessThanOrEqual(2);
  expect(compose.services.simulator!.profiles).toEqual(['demo']);
  expect(compose.services.mrms!.profiles).toEqual(['mrms']);
  for (const [name, s] of services)
    if (name !== 'simulator' && name !== 'mrms') expect(s.profiles).toBeUndefined();
});

it('runs the MRMS producer as its own service: two behind the Redis lease, uploading to the bucket', () => {
  const mrms = compose.services.mrms!;
  expect(words(mrms.command)).toEqual(['node', '/opt/radar/dist/bin/mrms.js']);
  expect(fs.existsSync(repoPath('src', 'bin', 'mrms.ts'))).toBe(true);
  expect(mrms.deploy?.replicas).toBe(2);
  // The same production configuration as ingest: Redis for the lease, the bucket ingest reads.
  for (const name of ['REDIS_URL', 'S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY', 'S3_SECRET_KEY'])
    expect([name, mrms.environment![name]]).toEqual([
      name,
      compose.services.ingest!.environment![name],
    ]);
  // NOAA's bucket is the default source: nothing to configure, no credentials.
  expect(mrms.environment!.MRMS_SOURCE).toBeUndefined();
  expect(mrms.expose).toEqual(['9464']);
  expect(mrms.ports).toBeUndefined();
  expect(mrms.depends_on).toMatchObject({
    redis: { condition: 'service_healthy' },
    createbuckets: { condition: 'service_completed_successfully' },
  });
  expect(readText('deploy/prometheus/prometheus.yml')).toMatch(/names: \[mrms\]/);
});

it.each(services)('%s uses a pinned public image or the project image', (_name, service) => {
  const image = service.image!;
  expect(image).toBeTruthy();
  if (PROJECT_IMAGE.test(image)) {
    expect(service.build).toEqual({ context: '.', dockerfile: 'deploy/Dockerfile' });
    return;
  }
  const [, repository, tag] = /^(.+?):([^:/]+)$/.exec(image) ?? [];
  expect(PUBLIC_IMAGES).toContain(repository);
  expect(tag).toBeTruthy();
  expect(tag).not.toBe('latest');
});

it('publishes and exposes only the ports the project defines', () => {
  for (const [name, s] of services) {
    for (const mapping of s.ports ?? []) {
      expect([name, containerPort(mapping)]).toEqual([name, expect.any(Number)]);
      expect(PORTS).toContain(containerPort(mapping));
      expect(PORTS).toContain(hostPort(mapping));
    }
    for (const port of s.expose ?? []) expect(PORTS).toContain(Number(port));
  }
  // The admin port (metrics, health) is never published on the host.
  for (const [, s] of services)
    for (const mapping of s.ports ?? []) expect(containerPort(mapping)).not.toBe(9464);
  expect(compose.services.nginx!.ports).toEqual(['8080:8080']);
});

it.each(project)('%s sets only configuration variables of src/config.ts', (_name, service) => {
  for (const variable of Object.keys(service.environment ?? {}))
    expect(CONFIG_VARIABLES).toContain(variable);
});

it('points the project containers at the compose Redis and MinIO', () => {
  for (const name of ['api', 'ingest']) {
    const env = compose.services[name]!.environment!;
    expect(env.REDIS_URL).toBe('redis://redis:6379');
    expect(env.S3_ENDPOINT).toBe('http://minio:9000');
    expect(env.S3_ACCESS_KEY).toBeTruthy();
    expect(env.S3_SECRET_KEY).toBeTruthy();
    expect(env.RADAR_KEYS_FILE).toBeUndefined(); // keys live in Redis
  }
  expect(compose.services.api!.environment!.RADAR_TRUST_PROXY).toBe('1');
  expect(compose.services.simulator!.environment!.S3_ENDPOINT).toBe('http://minio:9000');
  // The bucket the one-shot creates is the one the service reads.
  const bucket = compose.services.api!.environment!.S3_BUCKET;
  expect(words(compose.services.createbuckets!.command).join(' ')).toContain(
    `mc mb --ignore-existing radar/${bucket}`,
  );
});

it('runs entry points that exist, from the image layout of deploy/Dockerfile', () => {
  const dockerfile = readText('deploy/Dockerfile');
  expect(dockerfile).toMatch(/^CMD \["node", "\/opt\/radar\/dist\/bin\/api\.js"\]$/m);
  for (const [name, s] of project) {
    for (const word of words(s.command)) {
      const m = /^\/opt\/radar\/dist\/bin\/([\w-]+)\.js$/.exec(word);
      if (m)
        expect([name, fs.existsSync(repoPath('src', 'bin', `${m[1]}.ts`))]).toEqual([name, true]);
    }
  }
  expect(words(compose.services.ingest!.command)).toEqual([
    'node',
    '/opt/radar/dist/bin/ingest.js',
  ]);
  expect(words(compose.services.simulator!.command).slice(0, 2)).toEqual([
    'node',
    '/opt/radar/dist/bin/simulate.js',
  ]);
  expect(compose.services.api!.command).toBeUndefined(); // the image's CMD: the API
});

it('checks API health on the admin port and drains longer than RADAR_DRAIN_S', () => {
  const api = compose.services.api!;
  expect(api.healthcheck!.test!.join(' ')).toMatch(/port:9464,path:'\/(readyz|healthz)'/);
  const drain = Number(api.environment!.RADAR_DRAIN_S ?? 30);
  expect(parseInt(api.stop_grace_period!, 10)).toBeGreaterThan(drain);
  expect(compose.services.simulator!.healthcheck).toEqual({ disable: true });
  expect(compose.services['probe-targets']!.healthcheck).toEqual({ disable: true });
});

it('mounts files that exist, and nginx the production config with the compose upstream', () => {
  for (const [name, s] of services) {
    for (const volume of s.volumes ?? []) {
      const source = volume.split(':')[0]!;
      if (source.startsWith('.'))
        expect([name, source, fs.existsSync(repoPath(source))]).toEqual([name, source, true]);
      else expect(Object.keys(compose.volumes ?? {})).toContain(source);
    }
  }
  expect(compose.services.nginx!.volumes).toContain('./nginx/nginx.conf:/etc/nginx/nginx.conf:ro');
  expect(readText('nginx/nginx.conf')).toMatch(/^\s*server api:8080\b/m);
  expect(compose.services.prometheus!.volumes).toContain('./deploy/prometheus:/etc/prometheus:ro');
});

it('depends only on services it defines, and waits for Redis, the bucket and healthy replicas', () => {
  for (const [name, s] of services) {
    const deps = Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});
    for (const dep of deps)
      expect([name, Object.keys(compose.services)]).toEqual([name, expect.arrayContaining([dep])]);
  }
  expect(compose.services.api!.depends_on).toMatchObject({
    redis: { condition: 'service_healthy' },
    createbuckets: { condition: 'service_completed_successfully' },
  });
  expect(compose.services.nginx!.depends_on).toMatchObject({
    api: { condition: 'service_healthy' },
  });
});

it('is scraped by the Prometheus configuration through the compose service names', () => {
  const prom = readText('deploy/prometheus/prometheus.yml');
  expect(prom).toMatch(/names: \[api\]/);
  expect(prom).toMatch(/names: \[ingest\]/);
  // Alertmanager, the exporters and the probe-targets discovery by their service names.
  expect(prom).toContain("targets: ['alertmanager:9093']");
  expect(prom).toContain('replacement: blackbox:9115');
  expect(prom).toContain('url: http://probe-targets:9465/targets');
  expect(prom).toContain("targets: ['nginx:9113']"); // the exporter lives in nginx's namespace
});

it('runs the exporters and Alertmanager on their shipped configurations, the probe key as a secret', () => {
  const blackbox = compose.services.blackbox!;
  expect(blackbox.volumes).toContain('./deploy/blackbox:/etc/blackbox:ro');
  expect(words(blackbox.command)).toContain('--config.file=/etc/blackbox/blackbox.yml');
  const alertmanager = compose.services.alertmanager!;
  expect(alertmanager.volumes).toContain('./deploy/alertmanager:/etc/alertmanager:ro');
  expect(words(alertmanager.command)).toContain('--config.file=/etc/alertmanager/alertmanager.yml');
  // Alertmanager answers on loopback only.
  expect(alertmanager.ports).toEqual(['127.0.0.1:9093:9093']);
  // The nginx exporter reaches stub_status on nginx's loopback-only status server.
  const exporter = compose.services['nginx-exporter'] as Service & { network_mode?: string };
  expect(exporter.network_mode).toBe('service:nginx');
  expect(words(exporter.command)).toContain('--nginx.scrape-uri=http://127.0.0.1:9180/stub_status');
  expect(readText('nginx/nginx.conf')).toMatch(/listen 127\.0\.0\.1:9180;/);
  // The probe key: a secret in both probe services, at the path blackbox.yml reads.
  const secrets = (compose as Compose & { secrets?: Record<string, unknown> }).secrets ?? {};
  expect(Object.keys(secrets)).toEqual(['radar_probe_key']);
  for (const name of ['blackbox', 'probe-targets'])
    expect((compose.services[name] as Service & { secrets?: string[] }).secrets).toEqual([
      'radar_probe_key',
    ]);
  expect(readText('deploy/blackbox/blackbox.yml')).toContain(
    'credentials_file: /run/secrets/radar_probe_key',
  );
});
