/**
 * A bug that escapes every handler (an uncaught exception, an unhandled rejection) in the real
 * built server process: it is logged as fatal with its stack, readiness fails at once, the
 * download in flight still completes (drain), and the process exits non-zero. The fault is
 * raised by a preloaded fixture (test/fixtures/inject-fatal.cjs) on SIGUSR2.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { writeKeyFile } from '../../src/adapters/fs/key-file';
import { archiveOf, pyramid } from '../fixtures/archives';
import { auth, registryData } from '../harness/embedded-api';
import { request } from '../harness/http-client';
import type { SpawnedProcess } from '../harness/spawned-api';
import { spawnServedApi } from '../harness/served-api';

jest.setTimeout(90_000);

const INJECT = path.resolve(__dirname, '../fixtures/inject-fatal.cjs');
const TS = '202611221400';
// ~17 MB: far more than the socket buffers, so a paused download stays in flight.
const archive = archiveOf(pyramid(3, 200_000), 3);

let root: string;
beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-fatal-'));
  await fs.mkdir(path.join(root, 'data'));
  await fs.writeFile(path.join(root, 'data', `${TS}.pmtiles`), archive);
  await writeKeyFile(path.join(root, 'keys.json'), registryData());
});
afterAll(() => fs.rm(root, { recursive: true, force: true }));

interface Server {
  proc: SpawnedProcess;
  base: string;
  admin: string;
  exit: Promise<number | null>;
}

async function start(kind: 'exception' | 'rejection'): Promise<Server> {
  const { proc, base, admin } = await spawnServedApi(root, TS, {
    NODE_OPTIONS: `--require ${INJECT}`,
    RADAR_TEST_FATAL: kind,
    RADAR_DRAIN_S: '30',
    LOG_LEVEL: 'info',
  });
  // Attached before the test sends the signal that makes the process fail.
  const exit = new Promise<number | null>((resolve) =>
    proc.child.once('exit', (code) => resolve(code)),
  );
  return { proc, base, admin, exit };
}

function fatalLine(stdout: string): Record<string, unknown> | undefined {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((entry) => entry.level === 60);
}

it.each(['rejection', 'exception'] as const)(
  'an unhandled %s: logged as fatal, not ready at once, the download in flight completes, exit 1',
  async (kind) => {
    const server = await start(kind);
    // A download in flight, paused by its client after the first chunk.
    let received = 0;
    let response!: http.IncomingMessage;
    const downloaded = new Promise<number>((resolve, reject) => {
      const req = http.get(
        `${server.base}/tiles/${TS}.pmtiles`,
        { headers: auth(), agent: false },
        (res) => {
          response = res;
          res.once('data', () => res.pause());
          res.on('data', (chunk: Buffer) => (received += chunk.length));
          res.on('end', () => resolve(received));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
    });
    const deadline = Date.now() + 10_000;
    while (received === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(received).toBeGreaterThan(0);

    server.proc.child.kill('SIGUSR2');

    // Readiness fails while the process is still draining the download.
    let ready = 200;
    while (ready === 200 && Date.now() < deadline + 10_000) {
      ready = (await request(server.admin, '/readyz')).status;
      if (ready === 200) await new Promise((r) => setTimeout(r, 20));
    }
    expect(ready).toBe(503);
    expect(server.proc.child.exitCode).toBeNull();
    expect(received).toBeLessThan(archive.length);

    response.resume();
    expect(await downloaded).toBe(archive.length);
    expect(await server.exit).toBe(1);

    const line = fatalLine(server.proc.stdout());
    expect(line).toBeDefined();
    expect(line!.kind).toBe(kind === 'rejection' ? 'unhandled rejection' : 'uncaught exception');
    const err = line!.err as { message: string; stack: string };
    expect(err.message).toBe('injected by test');
    expect(err.stack).toContain('inject-fatal.cjs');
    expect(server.proc.stdout()).toContain('shutdown complete');
  },
);
