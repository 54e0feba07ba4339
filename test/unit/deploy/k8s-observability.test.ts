/**
 * deploy/k8s/observability, checked statically (no cluster here): the manifests parse and the
 * kustomization lists them; the Alertmanager and blackbox ConfigMaps carry exactly the shipped
 * configurations; the probe key is a Secret mounted where blackbox.yml reads it; the nginx
 * exporter is a sidecar of the edge reading nginx's loopback status server; and the addresses
 * prometheus-k8s.yml uses are the Services defined here.
 */
import path from 'node:path';
import YAML from 'yaml';
import { DEPLOY, listFiles, readText, readYamlDocuments } from './deploy-files';

const DIR = path.join(DEPLOY, 'k8s', 'observability');

interface Container {
  name: string;
  image: string;
  args?: string[];
  command?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface Manifest {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    type?: string;
    externalName?: string;
    selector?: Record<string, string> | { matchLabels: Record<string, string> };
    ports?: Array<{ port: number; targetPort?: string | number }>;
    template?: {
      metadata: { labels: Record<string, string> };
      spec: {
        containers: Container[];
        volumes?: Array<{
          name: string;
          secret?: { secretName: string };
          configMap?: { name: string };
        }>;
      };
    };
  };
}

const kustomization = readYamlDocuments(path.join(DIR, 'kustomization.yaml'))[0] as {
  namespace: string;
  resources: string[];
};
const files = listFiles(DIR, ['.yaml']).filter((f) => !f.endsWith('kustomization.yaml'));
const manifests = files.flatMap((f) => readYamlDocuments(f) as Manifest[]);
const find = (kind: string, name: string) => {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
const podOf = (name: string) => find('Deployment', name).spec!.template!.spec;

it('parses, and the kustomization lists every manifest in the radar namespace', () => {
  expect([...kustomization.resources].sort()).toEqual(files.map((f) => path.basename(f)).sort());
  expect(kustomization.namespace).toBe('radar');
});

it.each([
  ['radar-alertmanager', 'alertmanager.yml', 'deploy/alertmanager/alertmanager.yml'],
  ['radar-blackbox', 'blackbox.yml', 'deploy/blackbox/blackbox.yml'],
])('ConfigMap %s carries exactly the shipped %s', (name, key, shipped) => {
  const inline = find('ConfigMap', name).data![key]!;
  expect(YAML.parse(inline)).toEqual(YAML.parse(readText(shipped)));
});

it('mounts the probe key Secret where blackbox.yml and probe-targets read it', () => {
  const secret = find('Secret', 'radar-probe-key');
  expect(Object.keys(secret.stringData ?? {})).toEqual(['radar_probe_key']);
  expect(readText('deploy/blackbox/blackbox.yml')).toContain(
    'credentials_file: /run/secrets/radar_probe_key',
  );
  for (const name of ['radar-blackbox', 'radar-probe-targets']) {
    const pod = podOf(name);
    const volume = pod.volumes!.find((v) => v.secret?.secretName === 'radar-probe-key')!;
    expect(pod.containers[0]!.volumeMounts).toContainEqual(
      expect.objectContaining({ name: volume.name, mountPath: '/run/secrets' }),
    );
  }
  expect(podOf('radar-probe-targets').containers[0]!.command).toEqual(
    expect.arrayContaining([
      '/opt/radar/dist/bin/probe-targets.js',
      '/run/secrets/radar_probe_key',
    ]),
  );
});

it('runs the nginx exporter beside nginx, reading the loopback stub_status of nginx.conf', () => {
  const pod = podOf('radar-edge');
  const exporter = pod.containers.find((c) => c.name === 'nginx-exporter')!;
  expect(exporter.args).toContain('--nginx.scrape-uri=http://127.0.0.1:9180/stub_status');
  expect(exporter.ports).toEqual([{ name: 'metrics', containerPort: 9113 }]);
  expect(readText('nginx/nginx.conf')).toMatch(/listen 127\.0\.0\.1:9180;/);
  // nginx.conf's upstream `api:8080` resolves to radar-api through an ExternalName Service.
  expect(readText('nginx/nginx.conf')).toMatch(/^\s*server api:8080\b/m);
  expect(find('Service', 'api').spec).toMatchObject({
    type: 'ExternalName',
    externalName: 'radar-api.radar.svc.cluster.local',
  });
});

it('prometheus-k8s.yml reaches Alertmanager, the blackbox exporter, probe-targets and the edge by these Services', () => {
  const prom = readText('deploy/prometheus/prometheus-k8s.yml');
  const services = new Map(
    manifests.filter((m) => m.kind === 'Service').map((s) => [s.metadata.name, s]),
  );
  const addresses = [...prom.matchAll(/\b(radar-[a-z-]+)\.radar\.svc:([0-9]+)/g)];
  expect(new Set(addresses.map((a) => a[1])).size).toBe(4);
  for (const [, name, port] of addresses) {
    const service = services.get(name!);
    expect([name, service?.spec?.ports?.map((p) => p.port)]).toEqual([name, [Number(port)]]);
  }
  // The edge exporter is discovered per pod on its port "metrics".
  expect(prom).toMatch(/regex: edge\n\s+action: keep/);
  expect(prom).toMatch(/regex: metrics\n\s+action: keep/);
});
