/**
 * deploy/k8s/mrms, checked statically (no cluster here): the MRMS producer's manifests parse
 * and the kustomization lists them; the Deployment runs the producer's entry point, two
 * replicas behind the Redis lease, with the shared ConfigMap and Secret of deploy/k8s, only
 * variables of src/config.ts, probes and metrics on the admin port, bounded resources; the
 * PDB selects it; Prometheus names its job radar-mrms, which the alert rules use.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_VARIABLES } from '../../../src/config';
import { allRules, DEPLOY, listFiles, readText, readYamlDocuments, repoPath } from './deploy-files';

const DIR = path.join(DEPLOY, 'k8s', 'mrms');

interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}
interface Manifest {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: {
    replicas?: number;
    maxUnavailable?: number;
    selector?: { matchLabels: Record<string, string> };
    template?: {
      metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
      spec: { containers: Container[]; securityContext?: { runAsNonRoot?: boolean } };
    };
  };
}

const kustomization = readYamlDocuments(path.join(DIR, 'kustomization.yaml'))[0] as {
  namespace: string;
  resources: string[];
  images: Array<{ name: string }>;
};
const files = listFiles(DIR, ['.yaml']).filter((f) => !f.endsWith('kustomization.yaml'));
const manifests = files.flatMap((f) => readYamlDocuments(f) as Manifest[]);
const deployment = manifests.find(
  (m) => m.kind === 'Deployment' && m.metadata.name === 'radar-mrms',
)!;
const pod = deployment.spec!.template!;
const container = pod.spec.containers[0]!;
const main = listFiles(path.join(DEPLOY, 'k8s'), ['.yaml']).flatMap(
  (f) => readYamlDocuments(f) as Manifest[],
);

it('parses, and the kustomization lists every manifest in the radar namespace', () => {
  expect([...kustomization.resources].sort()).toEqual(files.map((f) => path.basename(f)).sort());
  expect(kustomization.namespace).toBe('radar');
  expect(kustomization.images.map((i) => i.name)).toEqual(['radar-tiles']);
  expect(manifests.map((m) => `${m.kind}/${m.metadata.name}`).sort()).toEqual([
    'Deployment/radar-mrms',
    'PodDisruptionBudget/radar-mrms',
  ]);
});

it('runs two producers of the mrms entry point from the project image', () => {
  expect(deployment.spec!.replicas).toBe(2);
  expect(container.image).toMatch(/^radar-tiles:[\w.-]+$/);
  expect(container.command).toEqual(['node', '/opt/radar/dist/bin/mrms.js']);
  expect(fs.existsSync(repoPath('src', 'bin', 'mrms.ts'))).toBe(true);
  expect(pod.metadata.labels).toEqual({
    'app.kubernetes.io/name': 'radar-tiles',
    'app.kubernetes.io/component': 'mrms',
  });
  expect(deployment.spec!.selector!.matchLabels).toEqual(pod.metadata.labels);
  expect(pod.spec.securityContext!.runAsNonRoot).toBe(true);
});

it('shares the ConfigMap and Secret of deploy/k8s and sets only variables of src/config.ts', () => {
  const configMap = main.find((m) => m.kind === 'ConfigMap')!.metadata.name;
  const secret = main.find((m) => m.kind === 'Secret')!.metadata.name;
  expect(container.envFrom).toEqual([
    { configMapRef: { name: configMap } },
    { secretRef: { name: secret } },
  ]);
  for (const { name } of container.env ?? []) expect(CONFIG_VARIABLES).toContain(name);
});

it('probes and exposes metrics on the admin port, with bounded resources', () => {
  expect(container.ports).toEqual([{ name: 'admin', containerPort: 9464 }]);
  expect(container.readinessProbe!.httpGet).toEqual({ path: '/readyz', port: 'admin' });
  expect(container.livenessProbe!.httpGet).toEqual({ path: '/healthz', port: 'admin' });
  expect(pod.metadata.annotations).toMatchObject({
    'prometheus.io/scrape': 'true',
    'prometheus.io/port': '9464',
    'prometheus.io/path': '/metrics',
  });
  expect(container.resources!.requests).toEqual(
    expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }),
  );
  expect(container.resources!.limits!.memory).toBe('1Gi');
});

it('keeps a leader candidate through disruptions, and Prometheus names the job the alerts use', () => {
  const pdb = manifests.find((m) => m.kind === 'PodDisruptionBudget')!;
  expect(pdb.spec!.selector!.matchLabels).toEqual(pod.metadata.labels);
  expect(pdb.spec!.maxUnavailable).toBe(1);
  // prometheus-k8s.yml: job = radar-<component>, so these pods are job radar-mrms.
  expect(readText('deploy/prometheus/prometheus-k8s.yml')).toContain('replacement: radar-$1');
  const mrmsAlerts = allRules().filter((r) => r.alert?.startsWith('Mrms'));
  expect(mrmsAlerts.map((r) => r.alert).sort()).toEqual([
    'MrmsBadFiles',
    'MrmsFramesUntyped',
    'MrmsSourceFailing',
    'MrmsSourceLagging',
  ]);
  expect(readText('deploy/k8s/README.md')).toContain('kubectl apply -k deploy/k8s/mrms');
});
