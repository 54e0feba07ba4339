/**
 * deploy/k8s, checked statically (no cluster here): every manifest parses, the kustomization
 * lists them all, only the project image, the project's ports and the variables of
 * src/config.ts appear, and the API/ingest Deployments keep the operational promises
 * (probes on the admin port, drain inside the grace period, resources, PDB, HPA, two workers).
 */
import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_VARIABLES } from '../../../src/config';
import { DEPLOY, listFiles, readYamlDocuments, repoPath } from './deploy-files';

const K8S = path.join(DEPLOY, 'k8s');

interface Probe {
  httpGet?: { path: string; port: number | string };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] }; sleep?: { seconds: number } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string> } | Record<string, string>;
    template?: {
      metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
      spec: {
        containers: Container[];
        terminationGracePeriodSeconds?: number;
        securityContext?: { runAsNonRoot?: boolean };
      };
    };
    ports?: Array<{ name?: string; port: number; targetPort?: number | string }>;
    scaleTargetRef?: { kind: string; name: string };
    minReplicas?: number;
    maxReplicas?: number;
    metrics?: Array<{ type: string; resource?: { name: string } }>;
    maxUnavailable?: number;
    minAvailable?: number;
  };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

const kustomization = readYamlDocuments(path.join(K8S, 'kustomization.yaml'))[0] as {
  namespace: string;
  resources: string[];
  images: Array<{ name: string; newName?: string; newTag?: string }>;
};
const manifestFiles = listFiles(K8S, ['.yaml', '.yml']).filter(
  (f) => path.basename(f) !== 'kustomization.yaml',
);
const manifests = manifestFiles.flatMap((f) => readYamlDocuments(f) as Manifest[]);
const ofKind = (kind: string) => manifests.filter((m) => m.kind === kind);
const named = (kind: string, name: string) => {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
const deployments = ofKind('Deployment');
const containers = deployments.flatMap((d) => d.spec!.template!.spec.containers);
const PORTS = new Set([8080, 9464]);

function selectorOf(m: Manifest): Record<string, string> {
  const sel = m.spec!.selector as { matchLabels?: Record<string, string> } & Record<string, string>;
  return sel.matchLabels ?? sel;
}
function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}
function portNumber(container: Container, port: number | string): number {
  if (typeof port === 'number') return port;
  const found = container.ports?.find((p) => p.name === port);
  if (!found) throw new Error(`${container.name}: no port named ${port}`);
  return found.containerPort;
}

it('every manifest parses and the kustomization lists exactly the manifest files', () => {
  expect(manifests.length).toBeGreaterThanOrEqual(10);
  for (const m of manifests) {
    expect(m.apiVersion).toBeTruthy();
    expect(m.kind).toBeTruthy();
    expect(m.metadata.name).toBeTruthy();
  }
  expect([...kustomization.resources].sort()).toEqual(
    manifestFiles.map((f) => path.basename(f)).sort(),
  );
  expect(kustomization.namespace).toBe('radar');
  expect(fs.existsSync(path.join(K8S, 'README.md'))).toBe(true);
});

it('has the objects of the deployment contract', () => {
  expect(
    ofKind('Deployment')
      .map((d) => d.metadata.name)
      .sort(),
  ).toEqual(['radar-api', 'radar-ingest']);
  expect(ofKind('Service').map((d) => d.metadata.name)).toContain('radar-api');
  expect(
    ofKind('PodDisruptionBudget')
      .map((d) => d.metadata.name)
      .sort(),
  ).toEqual(['radar-api', 'radar-ingest']);
  expect(ofKind('HorizontalPodAutoscaler')).toHaveLength(1);
  expect(ofKind('ConfigMap')).toHaveLength(1);
  expect(ofKind('Secret')).toHaveLength(1);
});

it('uses only the project image, renamed by the kustomization', () => {
  for (const c of containers) expect(c.image).toMatch(/^radar-tiles:[\w.-]+$/);
  expect(kustomization.images.map((i) => i.name)).toEqual(['radar-tiles']);
});

it('uses only the ports the project defines (API 8080, admin 9464)', () => {
  for (const c of containers)
    for (const p of c.ports ?? []) expect(PORTS).toContain(p.containerPort);
  for (const s of ofKind('Service')) {
    for (const p of s.spec!.ports ?? []) {
      expect(PORTS).toContain(p.port);
      if (typeof p.targetPort === 'number') expect(PORTS).toContain(p.targetPort);
      else {
        const backends = deployments.filter((d) =>
          selects(selectorOf(s), d.spec!.template!.metadata.labels),
        );
        expect(backends.length).toBeGreaterThan(0);
        for (const d of backends)
          for (const c of d.spec!.template!.spec.containers)
            expect(PORTS).toContain(portNumber(c, p.targetPort!));
      }
    }
  }
  for (const d of deployments) {
    const annotations = d.spec!.template!.metadata.annotations ?? {};
    expect(annotations['prometheus.io/scrape']).toBe('true');
    expect(annotations['prometheus.io/port']).toBe('9464');
    expect(annotations['prometheus.io/path']).toBe('/metrics');
  }
  // The public Service never carries the admin port.
  expect(named('Service', 'radar-api').spec!.ports!.map((p) => p.port)).toEqual([8080]);
});

it('sets only configuration variables of src/config.ts (ConfigMap, Secret, env)', () => {
  const names = [
    ...ofKind('ConfigMap').flatMap((m) => Object.keys(m.data ?? {})),
    ...ofKind('Secret').flatMap((m) => Object.keys({ ...m.data, ...m.stringData })),
    ...containers.flatMap((c) => (c.env ?? []).map((e) => e.name)),
  ];
  expect(names.length).toBeGreaterThan(5);
  for (const name of names) expect(CONFIG_VARIABLES).toContain(name);
  const secret = ofKind('Secret')[0]!;
  expect(Object.keys(secret.stringData ?? {}).sort()).toEqual([
    'REDIS_URL',
    'S3_ACCESS_KEY',
    'S3_SECRET_KEY',
  ]);
  for (const c of containers) {
    expect(c.envFrom).toEqual([
      { configMapRef: { name: ofKind('ConfigMap')[0]!.metadata.name } },
      { secretRef: { name: secret.metadata.name } },
    ]);
  }
});

it('selectors match: Deployments select their pods; Services, PDBs and the HPA find them', () => {
  for (const d of deployments)
    expect(selects(selectorOf(d), d.spec!.template!.metadata.labels)).toBe(true);
  for (const m of [...ofKind('Service'), ...ofKind('PodDisruptionBudget')]) {
    const matched = deployments.filter((d) =>
      selects(selectorOf(m), d.spec!.template!.metadata.labels),
    );
    expect([m.kind, m.metadata.name, matched.length > 0]).toEqual([m.kind, m.metadata.name, true]);
  }
  const hpa = ofKind('HorizontalPodAutoscaler')[0]!;
  expect(hpa.spec!.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: 'radar-api' });
  expect(hpa.spec!.minReplicas).toBeGreaterThanOrEqual(2);
  expect(hpa.spec!.maxReplicas).toBeGreaterThan(hpa.spec!.minReplicas!);
  expect(hpa.spec!.metrics).toEqual([
    expect.objectContaining({
      type: 'Resource',
      resource: expect.objectContaining({ name: 'cpu' }),
    }),
  ]);
  for (const pdb of ofKind('PodDisruptionBudget'))
    expect(pdb.spec!.maxUnavailable ?? 0).toBeLessThanOrEqual(1);
});

describe('API Deployment', () => {
  const api = named('Deployment', 'radar-api');
  const pod = api.spec!.template!.spec;
  const container = pod.containers[0]!;

  it('probes readiness on /readyz and liveness on /healthz of the admin port', () => {
    expect(container.readinessProbe!.httpGet!.path).toBe('/readyz');
    expect(portNumber(container, container.readinessProbe!.httpGet!.port)).toBe(9464);
    expect(container.livenessProbe!.httpGet!.path).toBe('/healthz');
    expect(portNumber(container, container.livenessProbe!.httpGet!.port)).toBe(9464);
  });

  it('sleeps in preStop, then drains within terminationGracePeriodSeconds', () => {
    const preStop = container.lifecycle!.preStop!;
    const sleepS =
      preStop.sleep?.seconds ??
      Number(/^sleep$/.test(preStop.exec!.command[0]!) ? preStop.exec!.command[1] : NaN);
    expect(sleepS).toBeGreaterThan(0);
    const drainS = Number(ofKind('ConfigMap')[0]!.data!.RADAR_DRAIN_S ?? 30);
    expect(pod.terminationGracePeriodSeconds!).toBeGreaterThan(sleepS + drainS);
  });

  it('requests and limits resources, runs as non-root, and runs the image default (the API)', () => {
    expect(container.resources!.requests).toEqual(
      expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }),
    );
    expect(container.resources!.limits).toEqual(
      expect.objectContaining({ memory: expect.any(String) }),
    );
    expect(pod.securityContext!.runAsNonRoot).toBe(true);
    expect(container.command).toBeUndefined();
    expect(container.env).toContainEqual({ name: 'RADAR_TRUST_PROXY', value: '1' });
  });
});

describe('ingest Deployment', () => {
  const ingest = named('Deployment', 'radar-ingest');
  const container = ingest.spec!.template!.spec.containers[0]!;

  it('runs two workers of the ingest entry point (one leader through the Redis lease)', () => {
    expect(ingest.spec!.replicas).toBe(2);
    expect(container.command).toEqual(['node', '/opt/radar/dist/bin/ingest.js']);
    expect(fs.existsSync(repoPath('src', 'bin', 'ingest.ts'))).toBe(true);
  });

  it('probes the admin port and requests resources', () => {
    expect(container.readinessProbe!.httpGet!.path).toBe('/readyz');
    expect(container.livenessProbe!.httpGet!.path).toBe('/healthz');
    expect(portNumber(container, container.livenessProbe!.httpGet!.port)).toBe(9464);
    expect(container.resources!.requests).toEqual(
      expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }),
    );
  });
});
