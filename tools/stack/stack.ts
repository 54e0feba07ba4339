/**
 * `npm run stack`: the production shape on one machine, without Docker. Starts a local
 * `redis-server`, an in-process S3 endpoint (s3rver) with the bucket, the ingest worker, the
 * simulator uploading to the bucket, N API replicas on loopback and nginx in front of them
 * (the shipped `nginx/nginx.conf`, rendered for local ports); creates demo credentials in
 * Redis (the same ones on every start, kept in `.stack/`); prints every address, the edge
 * first; stops everything on Ctrl-C.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateApiKey } from '../../src/keys/key-file-format';
import { hashApiKey } from '../../src/domain/key-registry';
import {
  demoBanner,
  DEMO_APP_ID,
  DEMO_KEY_ID,
  type DemoCredentials,
} from '../../src/embedded/demo-credentials';
import { startChild, type StackChild } from './child-process';
import { freePort } from './free-port';
import { startLocalNginx, type LocalNginx } from './local-nginx';
import { startLocalRedis } from './local-redis';
import { startLocalS3 } from './local-s3';
import { openKeyAdmin } from '../../src/wiring/keys';
import { backendEnv } from './backend-env';

const USAGE = `usage: npm run stack -- [--replicas N] [--port P] [--edge-port E] [--no-edge] [--backfill N] [--max-zoom Z] [--log-level LEVEL]
  --replicas N   API replicas (default 2)
  --port P       first replica's port (default 8081; replica i listens on P+i-1)
  --edge-port E  nginx in front of the replicas (default 8080)
  --no-edge      no nginx: use the replicas directly
  --backfill N   simulator frames at start (default 30)
  --max-zoom Z   simulator deepest zoom (default 7)
  --log-level L  children's LOG_LEVEL (default warn)`;

async function demoCredentials(stateDir: string): Promise<DemoCredentials> {
  const file = path.join(stateDir, 'demo-credentials.json');
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as DemoCredentials;
  } catch {
    const credentials = { apiKey: generateApiKey(), appId: DEMO_APP_ID };
    await fs.writeFile(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
    return credentials;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      replicas: { type: 'string', default: '2' },
      port: { type: 'string', default: '8081' },
      'edge-port': { type: 'string', default: '8080' },
      'no-edge': { type: 'boolean', default: false },
      backfill: { type: 'string', default: '30' },
      'max-zoom': { type: 'string', default: '7' },
      'log-level': { type: 'string', default: 'warn' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const replicas = Number(values.replicas);
  const firstPort = Number(values.port);
  const edgePort = Number(values['edge-port']);
  const withEdge = !values['no-edge'];
  if (
    !Number.isInteger(replicas) ||
    replicas < 1 ||
    !Number.isInteger(firstPort) ||
    !Number.isInteger(edgePort)
  ) {
    throw new Error(USAGE);
  }

  const stateDir = path.resolve('.stack');
  const s3Dir = path.join(stateDir, 's3');
  await fs.mkdir(s3Dir, { recursive: true });
  // The production entry points, as the image runs them (`npm run stack` builds them first).
  const bin = path.resolve(__dirname, '../../dist/bin');
  const children: StackChild[] = [];
  const stoppers: Array<() => Promise<void>> = [];
  let edge: LocalNginx | undefined;

  const stopAll = async () => {
    process.stdout.write('\nstopping the stack...\n');
    // The edge first, so no request reaches a replica that is draining.
    await edge?.stop();
    await Promise.all([...children].reverse().map((c) => c.stop()));
    for (const stop of stoppers.reverse()) await stop().catch(() => {});
  };

  try {
    const redis = await startLocalRedis();
    stoppers.push(() => redis.stop());
    const s3 = await startLocalS3({ directory: s3Dir, bucket: 'radar' });
    stoppers.push(() => s3.stop());

    const demo = await demoCredentials(stateDir);
    const admin = openKeyAdmin({ kind: 'redis', url: redis.url, timeoutMs: 2000, resyncS: 5 });
    await admin.store.update(() => ({
      apps: [{ id: demo.appId, disabled: false }],
      keys: [
        { id: DEMO_KEY_ID, sha256: hashApiKey(demo.apiKey), apps: [demo.appId], disabled: false },
      ],
    }));
    await admin.close();

    const common = {
      ...backendEnv(redis.url, s3),
      LOG_LEVEL: values['log-level'],
      HOST: '127.0.0.1',
    };
    // Behind nginx the replicas take the client address from X-Forwarded-For (one hop).
    const replicaEnv = withEdge ? { ...common, RADAR_TRUST_PROXY: '1' } : common;
    const ingestAdmin = await freePort();
    children.push(
      startChild('ingest', path.join(bin, 'ingest.js'), {
        ...common,
        ADMIN_PORT: String(ingestAdmin),
      }),
    );
    children.push(
      startChild('simulator', path.join(bin, 'simulate.js'), common, {
        args: ['--backfill', values.backfill, '--max-zoom', values['max-zoom']],
      }),
    );
    const lines = [
      '',
      'Local stack (production shape, loopback only)',
      '',
      `  Redis:        ${redis.url}`,
      `  S3 (s3rver):  ${s3.endpoint}  bucket ${s3.bucket}, data in ${s3Dir}`,
      `  ingest:       admin http://127.0.0.1:${ingestAdmin}/readyz`,
    ];
    for (let i = 1; i <= replicas; i++) {
      const port = firstPort + i - 1;
      const adminPort = await freePort();
      children.push(
        startChild(`api-${i}`, path.join(bin, 'api.js'), {
          ...replicaEnv,
          PORT: String(port),
          ADMIN_PORT: String(adminPort),
        }),
      );
      lines.push(
        `  api-${i}:        http://127.0.0.1:${port}  (admin http://127.0.0.1:${adminPort}/readyz)`,
      );
    }
    let mainUrl = `http://127.0.0.1:${firstPort}`;
    if (withEdge) {
      const upstreams = Array.from({ length: replicas }, (_, i) => `127.0.0.1:${firstPort + i}`);
      edge = await startLocalNginx({
        upstreams,
        port: edgePort,
        prefixDir: path.join(stateDir, 'nginx'),
        onLog: (line) => process.stdout.write(`[nginx] ${line}\n`),
      }).catch((err: Error) => {
        throw new Error(
          `${err.message}\n(npm run stack -- --no-edge runs the replicas without nginx)`,
        );
      });
      mainUrl = edge.url;
      lines.splice(
        2,
        0,
        `  API (nginx):  ${edge.url}  -> ${upstreams.join(', ')}`,
        `                config ${edge.configFile}, access log ${edge.accessLogFile}`,
        `                nginx status http://127.0.0.1:${edge.statusPort}/stub_status`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    process.stdout.write(
      `${demoBanner(mainUrl, demo, 'Demo credentials (stored in Redis, the same on every start):')}\nCtrl-C stops everything.\n`,
    );
  } catch (err) {
    await stopAll();
    throw err;
  }

  let stopping = false;
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    void stopAll().then(() => process.exit(0));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  for (const child of children) {
    child.process.once('exit', (code, signal) => {
      if (!stopping)
        process.stdout.write(
          `[${child.name}] exited (${code ?? signal}); the rest keeps running\n`,
        );
    });
  }
  edge?.process.once('exit', (code, signal) => {
    if (!stopping)
      process.stdout.write(
        `[nginx] exited (${code ?? signal}); the replicas keep running on their own ports\n`,
      );
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`stack: ${(err as Error).message}\n`);
  process.exit(1);
});
