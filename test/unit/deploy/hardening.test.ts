/**
 * What the deployment files expose, checked statically: the admin port (metrics, health) is
 * reachable by Prometheus and nobody else, and the operator UIs are not on the network.
 * - docker-compose: every radar process Prometheus scrapes sets ADMIN_HOST to listen on the
 *   compose network (the default is loopback, which Prometheus could not reach); every
 *   published port but the API's edge binds the host's loopback; Prometheus has no HTTP
 *   lifecycle or admin API; Grafana has no default admin password.
 * - Kubernetes: the radar pods listen on the pod address (ADMIN_HOST) and a NetworkPolicy
 *   admits only Prometheus to the admin port, everyone to the API's public port, nothing else.
 */
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { DEPLOY, listFiles, readText, readYaml, readYamlDocuments } from './deploy-files';

const ADMIN_PORT = 9464;
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

describe('the service itself', () => {
  it('listens for admin on loopback unless told otherwise', () => {
    expect(loadConfig({}).admin.host).toBe('127.0.0.1');
    expect(loadConfig({ ADMIN_HOST: '0.0.0.0' }).admin.host).toBe('0.0.0.0');
  });
});

describe('docker-compose', () => {
  interface Service {
    image?: string;
    command?: string[] | string;
    environment?: Record<string, string | number | null>;
    ports?: string[];
  }
  const compose = readYaml<{ services: Record<string, Service> }>('docker-compose.yml');
  const service = (name: string) => {
    const found = compose.services[name];
    if (!found) throw new Error(`no service ${name}`);
    return found;
  };

  /** Compose services Prometheus scrapes (dns_sd names in prometheus.yml). */
  const scraped = [...readText('deploy/prometheus/prometheus.yml').matchAll(/names: \[(\w+)\]/g)]
    .map((m) => m[1]!)
    .filter((name) => name in compose.services);

  it('every scraped radar process listens for admin on the compose network', () => {
    expect(scraped).toEqual(expect.arrayContaining(['api', 'ingest']));
    for (const name of scraped) {
      if (!/^radar-tiles:/.test(service(name).image ?? '')) continue;
      const host = String(service(name).environment?.ADMIN_HOST ?? '127.0.0.1');
      expect([name, LOOPBACK.test(host)]).toEqual([name, false]);
    }
  });

  it('publishes only the edge on every interface; everything else on loopback', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      for (const mapping of s.ports ?? []) {
        const parts = mapping.replace(/\/(tcp|udp)$/, '').split(':');
        if (name === 'nginx') continue;
        expect([name, mapping, parts.length === 3 && LOOPBACK.test(parts[0]!)]).toEqual([
          name,
          mapping,
          true,
        ]);
      }
    }
    expect(service('prometheus').ports).toEqual(['127.0.0.1:9090:9090']);
    expect(service('grafana').ports).toEqual(['127.0.0.1:3000:3000']);
  });

  it('Prometheus can be neither stopped nor reloaded nor wiped over HTTP', () => {
    const command = [service('prometheus').command ?? []].flat().join(' ');
    expect(command).not.toMatch(/--web\.enable-lifecycle|--web\.enable-admin-api/);
  });

  it('Grafana has no default admin password: compose refuses to start without one', () => {
    const env = service('grafana').environment ?? {};
    const password = String(env.GF_SECURITY_ADMIN_PASSWORD ?? '');
    // ${VAR:?message} makes compose fail when VAR is unset or empty; ${VAR:-x} would default.
    expect(password).toMatch(/^\$\{GRAFANA_ADMIN_PASSWORD:\?[^}]+\}$/);
    expect(readText('docker-compose.yml')).not.toMatch(/GRAFANA_ADMIN_PASSWORD:-/);
    expect(env.GF_SECURITY_ADMIN_PASSWORD__FILE).toBeUndefined();
  });
});

describe('Kubernetes', () => {
  interface Manifest {
    kind: string;
    metadata: { name: string };
    data?: Record<string, string>;
    spec?: {
      template?: {
        metadata: { labels: Record<string, string> };
        spec: {
          containers: Array<{
            ports?: Array<{ name?: string; containerPort: number }>;
            env?: Array<{ name: string; value?: string }>;
            envFrom?: Array<{ configMapRef?: { name: string } }>;
          }>;
        };
      };
      podSelector?: { matchLabels?: Record<string, string> };
      policyTypes?: string[];
      ingress?: Array<{
        from?: Array<{
          namespaceSelector?: { matchLabels?: Record<string, string> };
          podSelector?: { matchLabels?: Record<string, string> };
          ipBlock?: { cidr: string };
        }>;
        ports?: Array<{ port: number | string; protocol?: string }>;
      }>;
    };
  }
  const K8S = path.join(DEPLOY, 'k8s');
  const manifests = listFiles(K8S, ['.yaml', '.yml'])
    .filter((f) => path.basename(f) !== 'kustomization.yaml')
    .flatMap((f) => readYamlDocuments(f) as Manifest[]);
  const kustomization = readYamlDocuments(path.join(K8S, 'kustomization.yaml'))[0] as {
    resources: string[];
  };
  const deployments = manifests.filter((m) => m.kind === 'Deployment');
  const policies = manifests.filter((m) => m.kind === 'NetworkPolicy');
  const selects = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
    Object.entries(selector ?? {}).every(([k, v]) => labels[k] === v);

  function adminHostOf(deployment: Manifest): string {
    const container = deployment.spec!.template!.spec.containers[0]!;
    const direct = container.env?.find((e) => e.name === 'ADMIN_HOST')?.value;
    if (direct !== undefined) return direct;
    for (const ref of container.envFrom ?? []) {
      const map = manifests.find(
        (m) => m.kind === 'ConfigMap' && m.metadata.name === ref.configMapRef?.name,
      );
      if (map?.data?.ADMIN_HOST !== undefined) return map.data.ADMIN_HOST;
    }
    return '127.0.0.1';
  }

  it('every radar pod listens for admin on its pod address (probes and Prometheus reach it)', () => {
    expect(deployments.length).toBeGreaterThanOrEqual(2);
    for (const d of deployments)
      expect([d.metadata.name, LOOPBACK.test(adminHostOf(d))]).toEqual([d.metadata.name, false]);
  });

  it('a NetworkPolicy admits only Prometheus to the admin port of every radar pod', () => {
    expect(kustomization.resources).toContain('network-policy.yaml');
    for (const d of deployments) {
      const labels = d.spec!.template!.metadata.labels;
      const covering = policies.filter((p) => selects(p.spec!.podSelector?.matchLabels, labels));
      expect([d.metadata.name, covering.length > 0]).toEqual([d.metadata.name, true]);
      const rules = covering.flatMap((p) => {
        expect(p.spec!.policyTypes).toContain('Ingress');
        return p.spec!.ingress ?? [];
      });
      const admitsAdmin = rules.filter(
        (r) =>
          !r.ports || r.ports.some((port) => port.port === ADMIN_PORT || port.port === 'admin'),
      );
      expect(admitsAdmin.length).toBeGreaterThan(0);
      for (const rule of admitsAdmin) {
        // A source list is required (none = everyone), and each source names Prometheus pods.
        expect(rule.from?.length).toBeGreaterThan(0);
        for (const source of rule.from ?? []) {
          expect(source.ipBlock).toBeUndefined();
          expect(source.podSelector?.matchLabels?.['app.kubernetes.io/name']).toBe('prometheus');
        }
      }
      // Every other port a pod opens is the API's public port.
      const containerPorts = d.spec!.template!.spec.containers.flatMap((c) => c.ports ?? []);
      for (const port of containerPorts)
        if (port.containerPort !== ADMIN_PORT) expect(port.containerPort).toBe(8080);
    }
  });

  it("the API's public port stays open to every source (the Ingress or nginx)", () => {
    const api = deployments.find((d) => d.metadata.name === 'radar-api')!;
    const labels = api.spec!.template!.metadata.labels;
    const open = policies
      .filter((p) => selects(p.spec!.podSelector?.matchLabels, labels))
      .flatMap((p) => p.spec!.ingress ?? [])
      .filter((r) => !r.from && r.ports?.some((port) => port.port === 8080));
    expect(open).toHaveLength(1);
  });
});
