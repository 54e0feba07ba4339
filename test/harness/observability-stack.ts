/**
 * The whole production shape with its observability, on loopback, from real binaries: Redis,
 * an S3 endpoint (s3rver, stoppable and restartable on the same port and data directory), two
 * API replicas, an ingest worker and an MRMS producer (`node dist/...`), nginx with the shipped
 * config,
 * probe-targets, and Debian's prometheus, prometheus-alertmanager,
 * prometheus-blackbox-exporter and prometheus-nginx-exporter on the shipped configurations
 * (rendered by observability-config.ts), Alertmanager delivering to an in-process webhook
 * receiver. Every port is a free one: nothing here uses or collides with system services.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'minio';
import { closeRedisClient, createRedisClient } from '../../src/adapters/redis/client';
import { createRedisKeyAdminStore } from '../../src/adapters/redis/key-admin';
import { hashApiKey } from '../../src/domain/key-registry';
import { createSilentLogger } from '../../src/logger';
import { startLocalS3, type LocalS3 } from '../../tools/stack/local-s3';
import type { LocalNginx } from '../../tools/stack/local-nginx';
import { parseTimestamp } from '../../src/domain/timestamps';
import { buildArchive } from '../fixtures/archives';
import { sampleFrameAt } from '../fixtures/mrms-frames';
import { startEdge } from './edge-stack';
import { startRedis, type RedisServer } from './redis-server';
import { settleWithin, waitFor } from './wait';
import { API_ENTRY, freePort, spawnNode, type SpawnedProcess } from './spawned-api';
import {
  renderAlertmanagerConfig,
  renderBlackboxConfig,
  renderPrometheusConfig,
  writeScaledRules,
} from './observability-config';
import { backendEnv } from '../../tools/stack/backend-env';

const INGEST_ENTRY = path.resolve(__dirname, '../../dist/bin/ingest.js');
const PROBE_TARGETS_ENTRY = path.resolve(__dirname, '../../dist/bin/probe-targets.js');
const MRMS_ENTRY = path.resolve(__dirname, '../../dist/bin/mrms.js');

export const OBS_KEYS = {
  traffic: 'rk_obs-traffic-0123456789',
  probe: 'rk_obs-probe-0123456789',
} as const;
export const OBS_APPS = { traffic: 'obs-web', probe: 'radar-probe' } as const;

/** One notification as the webhook received it (Alertmanager webhook payload v4). */
export interface Notification {
  readonly receiver: string;
  readonly at: number;
  readonly status: 'firing' | 'resolved';
  readonly alerts: Array<{ status: string; labels: Record<string, string> }>;
}

/** One alert as Alertmanager's API v2 (`/api/v2/alerts`) reports it. */
export interface ManagedAlert {
  readonly fingerprint: string;
  readonly labels: Record<string, string>;
  readonly status: { state: 'active' | 'suppressed' | 'unprocessed'; inhibitedBy: string[] };
}

export interface ObservabilityOptions {
  /** Production time / test time (rule windows and `for:` are divided by it). */
  readonly timeFactor: number;
  /** Scrape and evaluation interval in seconds. */
  readonly scrapeSeconds: number;
  /** Extra environment of the API replicas. */
  readonly replicaEnv?: Record<string, string>;
  /**
   * Runs once the radar processes, nginx and the exporters are up and before Prometheus and
   * Alertmanager start: warm-up traffic here is not part of the measured history (a production
   * Prometheus has months of history; a fresh one would judge the SLOs on a cold start alone).
   */
  readonly beforeMonitoring?: (
    edgeUrl: string,
    upload: (timestamp: string) => Promise<boolean>,
  ) => Promise<void>;
}

export interface ObservabilityStack {
  readonly edgeUrl: string;
  readonly prometheusUrl: string;
  readonly alertmanagerUrl: string;
  readonly nginx: LocalNginx;
  readonly notifications: Notification[];
  /** Uploads an archive for `timestamp` (returns false while the S3 endpoint is down). */
  upload(timestamp: string): Promise<boolean>;
  stopS3(): Promise<void>;
  startS3(): Promise<void>;
  /** A PromQL instant query; the result vector/scalar as Prometheus returns it. */
  query(expr: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  /** Names of the alerts Prometheus holds in `state` now. */
  alerts(state: 'firing' | 'pending'): Promise<string[]>;
  /** The alerts Alertmanager holds now, with whether an inhibition suppresses them. */
  managedAlerts(): Promise<ManagedAlert[]>;
  /** Recent output of every process, for failure messages. */
  logs(): string;
  stop(): Promise<void>;
}

interface Binary {
  readonly name: string;
  readonly child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts a Debian binary; it must stay up (an early exit rejects with its output). */
function startBinary(name: string, command: string, args: string[], cwd: string): Binary {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-32_768);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  child.on('error', (err) => keep(Buffer.from(`spawn failed: ${err.message}\n`)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function waitHttp(
  url: string,
  what: string,
  proc: { child: ChildProcess; output(): string },
) {
  await waitFor(
    async () => {
      if (proc.child.exitCode !== null)
        throw new Error(`${what} exited (${proc.child.exitCode}):\n${proc.output()}`);
      const status = await fetch(url, { signal: AbortSignal.timeout(2000) })
        .then((r) => r.status)
        .catch(() => 0);
      return status === 200;
    },
    30_000,
    `${what} answering ${url}`,
    100,
  );
}

function startWebhook(
  notifications: Notification[],
): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      try {
        const payload = JSON.parse(body) as Omit<Notification, 'receiver' | 'at'>;
        notifications.push({
          receiver: (req.url ?? '/').slice(1),
          at: Date.now(),
          status: payload.status,
          alerts: payload.alerts,
        });
      } catch {
        // Not an Alertmanager payload: ignore, the assertions only count real ones.
      }
      res.writeHead(200).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server }),
    ),
  );
}

export async function startObservabilityStack(
  options: ObservabilityOptions,
): Promise<ObservabilityStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-obs-'));
  const cleanup: Array<() => Promise<void>> = [
    async () => fs.rmSync(dir, { recursive: true, force: true }),
  ];
  const spawned: Array<{ name: string; output(): string }> = [];
  const logs = () => spawned.map((p) => `---- ${p.name}\n${p.output().slice(-4000)}`).join('\n');
  const unwind = async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  };
  try {
    // ---- state: Redis and a restartable S3 endpoint
    const redis: RedisServer = await startRedis();
    cleanup.push(() => redis.stop());
    const s3Dir = path.join(dir, 's3');
    fs.mkdirSync(s3Dir);
    const bucket = 'radar-obs';
    const s3Port = await freePort();
    let s3: LocalS3 | undefined = await startLocalS3({ directory: s3Dir, bucket, port: s3Port });
    cleanup.push(async () => void (await s3?.stop()));
    const s3Client = new Client({
      endPoint: '127.0.0.1',
      port: s3Port,
      useSSL: false,
      accessKey: s3.accessKey,
      secretKey: s3.secretKey,
      region: 'us-east-1',
      pathStyle: true,
    });

    const client = createRedisClient(redis.url, {
      role: 'test',
      logger: createSilentLogger(),
      commandTimeoutMs: 2000,
    });
    await createRedisKeyAdminStore(client).update(() => ({
      apps: [
        { id: OBS_APPS.traffic, disabled: false },
        { id: OBS_APPS.probe, disabled: false },
      ],
      keys: [
        {
          id: 'traffic',
          sha256: hashApiKey(OBS_KEYS.traffic),
          apps: [OBS_APPS.traffic],
          disabled: false,
        },
        {
          id: 'probe',
          sha256: hashApiKey(OBS_KEYS.probe),
          apps: [OBS_APPS.probe],
          disabled: false,
        },
      ],
    }));
    await closeRedisClient(client);

    const radarEnv = {
      HOST: '127.0.0.1',
      ...backendEnv(redis.url, {
        endpoint: `http://127.0.0.1:${s3Port}`,
        accessKey: s3.accessKey,
        secretKey: s3.secretKey,
        bucket,
        region: 'us-east-1',
      }),
      RADAR_RESYNC_S: '1',
      RADAR_INGEST_POLL_S: '1',
      RADAR_RETENTION_S: String(10 * 365 * 86400),
      RADAR_DRAIN_S: '1',
      LOG_LEVEL: 'warn',
    };
    const node = (name: string, proc: SpawnedProcess) => {
      spawned.push({ name, output: () => proc.stderr() + proc.stdout() });
      cleanup.push(async () => void (await proc.stop('SIGKILL')));
      return proc;
    };

    // ---- the radar processes
    const replicas: Array<{ port: number; adminPort: number }> = [];
    for (let i = 0; i < 2; i++) {
      const [port, adminPort] = [await freePort(), await freePort()];
      const proc = node(
        `api-${i + 1}`,
        spawnNode(API_ENTRY, {
          cwd: dir,
          env: {
            ...radarEnv,
            PORT: String(port),
            ADMIN_PORT: String(adminPort),
            RADAR_TRUST_PROXY: '1',
            ...options.replicaEnv,
          },
        }),
      );
      await waitHttp(`http://127.0.0.1:${adminPort}/healthz`, `api-${i + 1}`, {
        child: proc.child,
        output: () => proc.stderr(),
      });
      replicas.push({ port, adminPort });
    }
    const ingestAdmin = await freePort();
    const ingest = node(
      'ingest',
      spawnNode(INGEST_ENTRY, { cwd: dir, env: { ...radarEnv, ADMIN_PORT: String(ingestAdmin) } }),
    );
    await waitHttp(`http://127.0.0.1:${ingestAdmin}/healthz`, 'ingest', {
      child: ingest.child,
      output: () => ingest.stderr(),
    });

    // The MRMS producer, scraped as job radar-mrms, follows a local feed: each uploaded frame's
    // MRMS file appears there after the upload, so it finds the frame published (no second
    // conversion) and its source lag stays as fresh as the frames.
    const mrmsFeed = path.join(dir, 'mrms-feed');
    fs.mkdirSync(mrmsFeed);
    const mrmsAdmin = await freePort();
    const mrms = node(
      'mrms',
      spawnNode(MRMS_ENTRY, {
        cwd: dir,
        env: { ...radarEnv, ADMIN_PORT: String(mrmsAdmin), MRMS_SOURCE: mrmsFeed },
      }),
    );
    await waitHttp(`http://127.0.0.1:${mrmsAdmin}/healthz`, 'mrms', {
      child: mrms.child,
      output: () => mrms.stderr() + mrms.stdout(),
    });

    const nginx = await startEdge(replicas.map((r) => `127.0.0.1:${r.port}`));
    cleanup.push(() => nginx.stop());
    spawned.push({ name: 'nginx', output: () => nginx.errors() });

    // ---- the client-view probes
    const keyFile = path.join(dir, 'probe-key');
    fs.writeFileSync(keyFile, `${OBS_KEYS.probe}\n`, { mode: 0o600 });
    const probeTargetsPort = await freePort();
    const probeTargets = node(
      'probe-targets',
      spawnNode(PROBE_TARGETS_ENTRY, {
        cwd: dir,
        env: {},
        args: [
          '--edge',
          nginx.url,
          '--key-file',
          keyFile,
          '--host',
          '127.0.0.1',
          '--port',
          String(probeTargetsPort),
        ],
      }),
    );
    await waitHttp(`http://127.0.0.1:${probeTargetsPort}/healthz`, 'probe-targets', {
      child: probeTargets.child,
      output: () => probeTargets.stderr(),
    });

    const binary = (name: string, command: string, args: string[]) => {
      const b = startBinary(name, command, args, dir);
      spawned.push(b);
      cleanup.push(() => b.stop());
      return b;
    };
    const blackboxPort = await freePort();
    fs.writeFileSync(path.join(dir, 'blackbox.yml'), renderBlackboxConfig(keyFile));
    const blackbox = binary('blackbox', 'prometheus-blackbox-exporter', [
      `--config.file=${path.join(dir, 'blackbox.yml')}`,
      `--web.listen-address=127.0.0.1:${blackboxPort}`,
    ]);
    await waitHttp(`http://127.0.0.1:${blackboxPort}/metrics`, 'blackbox exporter', blackbox);

    const nginxExporterPort = await freePort();
    const nginxExporter = binary('nginx-exporter', 'prometheus-nginx-exporter', [
      `--nginx.scrape-uri=http://127.0.0.1:${nginx.statusPort}/stub_status`,
      `--web.listen-address=127.0.0.1:${nginxExporterPort}`,
    ]);
    await waitHttp(
      `http://127.0.0.1:${nginxExporterPort}/metrics`,
      'nginx exporter',
      nginxExporter,
    );

    const upload = async (timestamp: string) => {
      const bytes = buildArchive(timestamp, 2);
      const put = s3Client
        .putObject(bucket, `${timestamp}.pmtiles`, bytes, bytes.length)
        .then(() => true)
        .catch(() => false);
      const ok = await settleWithin(put, 5000, () => false);
      if (ok) {
        const frame = sampleFrameAt(parseTimestamp(timestamp)! + 39_000);
        const temp = path.join(mrmsFeed, `.${frame.name}`);
        fs.writeFileSync(temp, frame.bytes);
        fs.renameSync(temp, path.join(mrmsFeed, frame.name));
      }
      return ok;
    };
    await options.beforeMonitoring?.(nginx.url, upload);

    // ---- alerts: webhook <- Alertmanager <- Prometheus
    const notifications: Notification[] = [];
    const webhook = await startWebhook(notifications);
    cleanup.push(() => new Promise<void>((resolve) => webhook.server.close(() => resolve())));
    const amPort = await freePort();
    fs.writeFileSync(path.join(dir, 'alertmanager.yml'), renderAlertmanagerConfig(webhook.url));
    fs.mkdirSync(path.join(dir, 'am-data'));
    const alertmanager = binary('alertmanager', 'prometheus-alertmanager', [
      `--config.file=${path.join(dir, 'alertmanager.yml')}`,
      `--storage.path=${path.join(dir, 'am-data')}`,
      `--web.listen-address=127.0.0.1:${amPort}`,
      '--cluster.listen-address=', // no gossip port: a single local instance
      '--log.level=warn',
    ]);
    const alertmanagerUrl = `http://127.0.0.1:${amPort}`;
    await waitHttp(`${alertmanagerUrl}/-/ready`, 'alertmanager', alertmanager);

    const promPort = await freePort();
    const ruleDir = path.join(dir, 'rules');
    writeScaledRules(ruleDir, options.timeFactor);
    fs.writeFileSync(
      path.join(dir, 'prometheus.yml'),
      renderPrometheusConfig(
        {
          apiTargets: replicas.map((r) => `127.0.0.1:${r.adminPort}`),
          ingestTargets: [`127.0.0.1:${ingestAdmin}`],
          mrmsTargets: [`127.0.0.1:${mrmsAdmin}`],
          edgeUrl: nginx.url,
          alertmanager: `127.0.0.1:${amPort}`,
          blackbox: `127.0.0.1:${blackboxPort}`,
          nginxExporter: `127.0.0.1:${nginxExporterPort}`,
          probeTargets: `127.0.0.1:${probeTargetsPort}`,
          prometheus: `127.0.0.1:${promPort}`,
        },
        ruleDir,
        options.scrapeSeconds,
      ),
    );
    fs.mkdirSync(path.join(dir, 'tsdb'));
    const prometheus = binary('prometheus', 'prometheus', [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
      `--rules.alert.resend-delay=${options.scrapeSeconds * 2}s`,
      '--log.level=warn',
    ]);
    const prometheusUrl = `http://127.0.0.1:${promPort}`;
    await waitHttp(`${prometheusUrl}/-/ready`, 'prometheus', prometheus);

    const api = async <T>(p: string): Promise<T> => {
      const res = await fetch(`${prometheusUrl}${p}`, { signal: AbortSignal.timeout(10_000) });
      const body = (await res.json()) as { status: string; data: T; error?: string };
      if (body.status !== 'success') throw new Error(`prometheus ${p}: ${body.error}`);
      return body.data;
    };

    return {
      edgeUrl: nginx.url,
      prometheusUrl,
      alertmanagerUrl,
      nginx,
      notifications,
      upload,
      async stopS3() {
        await s3?.stop();
        s3 = undefined;
      },
      async startS3() {
        s3 = await startLocalS3({ directory: s3Dir, bucket, port: s3Port });
      },
      async query(expr) {
        const data = await api<{ resultType: string; result: unknown }>(
          `/api/v1/query?query=${encodeURIComponent(expr)}`,
        );
        if (data.resultType === 'scalar') {
          return [{ metric: {}, value: data.result as [number, string] }];
        }
        return data.result as Array<{ metric: Record<string, string>; value: [number, string] }>;
      },
      async alerts(state) {
        const data = await api<{ alerts: Array<{ state: string; labels: { alertname: string } }> }>(
          '/api/v1/alerts',
        );
        return data.alerts.filter((a) => a.state === state).map((a) => a.labels.alertname);
      },
      async managedAlerts() {
        const res = await fetch(`${alertmanagerUrl}/api/v2/alerts`, {
          signal: AbortSignal.timeout(10_000),
        });
        if (!res.ok) throw new Error(`alertmanager /api/v2/alerts: ${res.status}`);
        return (await res.json()) as ManagedAlert[];
      },
      logs,
      stop: unwind,
    };
  } catch (err) {
    const message = `${(err as Error).message}\n${logs()}`;
    await unwind();
    throw new Error(message);
  }
}
