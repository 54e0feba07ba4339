/**
 * Everything a run measures, started on loopback: the service in its production shape
 * (redis-server, s3rver, ingest worker, two replicas, nginx in front) and the baselines
 * (node:http from memory, nginx static, node:http streaming from S3). Every process is
 * registered with the runner for sampling and stopped in reverse order by `stop()`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ArchiveMeta } from '../../src/domain/ports';
import type { LocalNginx } from '../stack/local-nginx';
import type { LocalRedis } from '../stack/local-redis';
import type { Frame } from './archives';
import { benchEdgeTemplate, startEdge } from './edge';
import { startStaticNginx } from './nginx-static';
import type { BenchOptions } from './options';
import { httpGet, startTsServer } from './processes';
import { log, type Endpoint, type Runner } from './runner';
import {
  AUTH_HEADERS,
  startIngest,
  startRedisWithKeys,
  startReplica,
  startS3,
  uploadFrames,
  waitForPublished,
  type Replica,
  type S3Info,
} from './service';

/** The ingest worker's listing period (the production default of RADAR_INGEST_POLL_S). */
export const INGEST_POLL_S = 5;

export interface StatusCapture {
  readonly body: Buffer;
  readonly etag: string;
}

export async function captureStatus(url: string): Promise<StatusCapture> {
  const res = await httpGet(`${url}/status.json`, { ...AUTH_HEADERS });
  if (res.status !== 200) throw new Error(`status.json from ${url} answered ${res.status}`);
  return { body: res.body, etag: String(res.headers.etag) };
}

export interface Topology {
  readonly redis: LocalRedis;
  readonly s3: S3Info;
  /** Catalog metadata of the published frames, newest first. */
  readonly metas: ArchiveMeta[];
  readonly api1: Replica;
  readonly api2: Replica;
  readonly status: StatusCapture;
  readonly endpoints: Readonly<
    Record<'node' | 'nginxStatic' | 'nodeS3' | 's3' | 'direct' | 'edge', Endpoint>
  >;
  /** Directory the static baselines serve (nginx from disk, node:http lazily from memory). */
  readonly staticRoot: string;
  /** The deviation of the edge config from the shipped file. */
  readonly edgeChange: string;
  readonly notes: string[];
  /** Starts another replica (env on top of the bench defaults), watched until `stopReplica`. */
  replica(
    name: string,
    redisUrl: string,
    expect: number,
    env?: Record<string, string>,
    /** Node options before the entry point (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
    nodeArgs?: readonly string[],
  ): Promise<Replica>;
  stopReplica(name: string, replica: Replica): Promise<void>;
  /** Another edge (the shipped config) over `replicas`. */
  edgeOver(name: string, replicas: readonly Replica[]): Promise<LocalNginx>;
  /** Registers something to stop at the end (reverse order). */
  onStop(fn: () => Promise<void>): void;
  stop(): Promise<void>;
}

export async function startTopology(options: {
  opts: BenchOptions;
  runner: Runner;
  frames: readonly Frame[];
  runDir: string;
}): Promise<Topology> {
  const { opts, runner, frames, runDir } = options;
  const logDir = path.join(runDir, 'logs');
  await fs.mkdir(logDir, { recursive: true });
  const stoppers: Array<() => Promise<void>> = [];
  const notes: string[] = [];
  const stop = async () => {
    for (const fn of stoppers.splice(0).reverse()) {
      await fn().catch((err: unknown) => log(`stopping: ${(err as Error).message}`));
    }
  };
  const track = <T extends { stop(): Promise<void> }>(
    name: string,
    thing: T,
    pid: number,
    isTree = false,
  ): T => {
    stoppers.push(() => thing.stop());
    runner.watch(name, pid, isTree);
    return thing;
  };

  try {
    const redis = await startRedisWithKeys();
    track('redis', redis, redis.process.pid!);
    const s3Dir = path.join(runDir, 's3');
    await fs.mkdir(s3Dir);
    const s3server = await startS3(s3Dir, logDir);
    track('s3rver', s3server.proc, s3server.proc.pid);
    const s3 = s3server.s3;
    await uploadFrames(s3, frames);
    const ingest = await startIngest(redis.url, s3, logDir, {
      RADAR_INGEST_POLL_S: String(INGEST_POLL_S),
    });
    track('ingest', ingest, ingest.pid);
    const metas = await waitForPublished(redis.url, frames.length, ingest);
    log(`${metas.length} archives published by the ingest worker`);

    // Stale-after an hour: `healthy`, and with it the status ETag, must not flip mid-run.
    const replicaEnv = { RADAR_CACHE_MB: String(opts.cacheMb), RADAR_STALE_AFTER_S: '3600' };
    const replica = async (
      name: string,
      redisUrl: string,
      expect: number,
      env: Record<string, string> = {},
      nodeArgs: readonly string[] = [],
    ) => {
      const r = await startReplica(name, {
        redisUrl,
        s3,
        logDir,
        env: { ...replicaEnv, ...env },
        expectTimestamps: expect,
        nodeArgs,
      });
      track(name, r.proc, r.proc.pid);
      return r;
    };
    const api1 = await replica('api-1', redis.url, frames.length);
    const api2 = await replica('api-2', redis.url, frames.length);
    const status = await captureStatus(api1.url);
    const status2 = await captureStatus(api2.url);
    if (status.etag !== status2.etag) {
      notes.push(`The replicas' status ETags differ (${status.etag} vs ${status2.etag}).`);
    }

    // Baselines serve the same bytes: the captured status document and the archive files.
    const root = path.join(runDir, 'www');
    await fs.mkdir(path.join(root, 'tiles'), { recursive: true });
    await fs.writeFile(path.join(root, 'status.json'), status.body);
    await fs.writeFile(path.join(root, 'status.etag'), status.etag);
    for (const frame of frames) {
      await fs.writeFile(path.join(root, 'tiles', `${frame.timestamp}.pmtiles`), frame.bytes);
    }
    await fs.chmod(root, 0o755); // nginx workers run unprivileged
    await fs.chmod(path.join(root, 'tiles'), 0o755);
    const servers = path.join(__dirname, 'servers');
    const nodeMem = await startTsServer<{ port: number }>(
      'node-memory',
      path.join(servers, 'node-memory-server.ts'),
      [root],
      logDir,
    );
    track('node-memory', nodeMem.proc, nodeMem.proc.pid);
    const staticNginx = await startStaticNginx({
      prefixDir: path.join(runDir, 'nginx-static'),
      root,
      workers: opts.nginxWorkers,
    });
    track('nginx-static', staticNginx.proc, staticNginx.proc.pid, true);
    const nodeS3 = await startTsServer<{ port: number }>(
      'node-s3-stream',
      path.join(servers, 'node-s3-stream-server.ts'),
      [s3.endpoint, s3.bucket],
      logDir,
    );
    track('node-s3-stream', nodeS3.proc, nodeS3.proc.pid);

    const template = await benchEdgeTemplate(runDir);
    const edgeOver = async (name: string, replicas: readonly Replica[]) => {
      const edge = await startEdge({
        prefixDir: path.join(runDir, name),
        upstreams: replicas.map((r) => `127.0.0.1:${r.port}`),
        templateFile: template.file,
        workers: opts.nginxWorkers,
      });
      return track(name, edge, edge.process.pid!, true);
    };
    const edge = await edgeOver('nginx', [api1, api2]);
    log(`service: api-1 ${api1.url}, api-2 ${api2.url}, nginx ${edge.url}`);

    const local = (port: number) => `http://127.0.0.1:${port}`;
    return {
      redis,
      s3,
      metas,
      api1,
      api2,
      status,
      staticRoot: root,
      edgeChange: template.change,
      notes,
      endpoints: {
        node: {
          against: 'node:http (memory)',
          kind: 'baseline',
          url: local(nodeMem.info.port),
          shown: ['node-memory'],
        },
        nginxStatic: {
          against: 'nginx static',
          kind: 'baseline',
          url: local(staticNginx.port),
          shown: ['nginx-static'],
        },
        nodeS3: {
          against: 'node:http streaming from S3',
          kind: 'baseline',
          url: local(nodeS3.info.port),
          shown: ['node-s3-stream', 's3rver'],
        },
        s3: {
          against: 'S3 endpoint (direct)',
          kind: 'baseline',
          url: s3.endpoint,
          shown: ['s3rver'],
          headers: {},
        },
        direct: {
          against: 'replica (direct)',
          kind: 'service',
          url: api1.url,
          shown: ['api-1', 'redis'],
        },
        edge: {
          against: 'nginx + 2 replicas',
          kind: 'service',
          url: edge.url,
          shown: ['nginx', 'api-1', 'api-2', 'redis'],
        },
      },
      replica,
      async stopReplica(name, r) {
        await r.proc.stop();
        runner.unwatch(name);
      },
      edgeOver,
      onStop: (fn) => stoppers.push(fn),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
