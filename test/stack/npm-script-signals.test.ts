/**
 * `npm start`, `npm run simulate` and `npm run mrms` stop as their users stop them: a process supervisor's
 * SIGTERM sent to the npm process alone, and a terminal's Ctrl-C (SIGINT to the whole
 * foreground process group, which npm forwards once more). Either way the service drains and
 * exits 0, npm exits 0, the API port stops answering and no process of the tree is left.
 *
 * The scripts build dist/ first when a source changed; `npm test` has just built it.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { request } from '../harness/http-client';
import { acceptsConnections, runNpmScript, type NpmScript } from '../harness/npm-script';
import { freePort } from '../harness/spawned-api';
import { waitFor } from '../harness/wait';
import { mrmsSample, REFLECTIVITY_SAMPLE } from '../fixtures/mrms-sample';

jest.setTimeout(120_000);

let dir: string;
const running: NpmScript[] = [];
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-npm-signals-'));
});
afterEach(async () => {
  for (const script of running.splice(0)) script.killGroup();
  await fs.rm(dir, { recursive: true, force: true });
});

type Stop = 'SIGTERM to npm' | 'Ctrl-C';

/** Sends the stop; then npm's exit, and the wait until no process of its group is left. */
async function stop(script: NpmScript, how: Stop): Promise<{ code: number | null }> {
  const pid = script.child.pid!;
  if (how === 'SIGTERM to npm') process.kill(pid, 'SIGTERM');
  else process.kill(-pid, 'SIGINT');
  const { code } = await script.exited;
  // The service is npm's child: it must be gone too, not left running without a parent.
  await waitFor(() => !script.groupAlive(), 30_000, 'every process of the npm tree gone', 100);
  return { code };
}

async function startApi(): Promise<{ script: NpmScript; port: number; adminPort: number }> {
  const [port, adminPort] = [await freePort(), await freePort()];
  const script = runNpmScript(['start'], {
    PORT: String(port),
    ADMIN_PORT: String(adminPort),
    HOST: '127.0.0.1',
    RADAR_DATA_DIR: path.join(dir, 'data'),
    RADAR_KEYS_FILE: path.join(dir, 'keys.json'),
    RADAR_SIM_BACKFILL: '2',
    RADAR_SIM_MAX_ZOOM: '3',
  });
  running.push(script);
  await script.waitFor(/API key: \S+/);
  const admin = `http://127.0.0.1:${adminPort}`;
  await waitFor(
    async () => (await request(admin, '/readyz').catch(() => undefined))?.status === 200,
    60_000,
    'the API ready',
    100,
  );
  return { script, port, adminPort };
}

it.each<Stop>(['SIGTERM to npm', 'Ctrl-C'])(
  'npm start: %s drains the API and exits 0, and the port stops answering',
  async (how) => {
    const { script, port, adminPort } = await startApi();
    expect(await acceptsConnections(port)).toBe(true);

    expect(await stop(script, how)).toEqual({ code: 0 });
    expect(script.output()).toContain('shutdown complete');
    expect(await acceptsConnections(port)).toBe(false);
    expect(await acceptsConnections(adminPort)).toBe(false);
  },
);

it.each<Stop>(['SIGTERM to npm', 'Ctrl-C'])(
  'npm run simulate: %s stops the simulator and exits 0',
  async (how) => {
    const out = path.join(dir, 'frames');
    const script = runNpmScript(
      ['run', 'simulate', '--', '--out', out, '--backfill', '2', '--max-zoom', '2'],
      {},
    );
    running.push(script);
    await script.waitFor(/startup done/);
    expect((await fs.readdir(out)).filter((f) => f.endsWith('.pmtiles'))).toHaveLength(2);

    expect(await stop(script, how)).toEqual({ code: 0 });
  },
);

it.each<Stop>(['SIGTERM to npm', 'Ctrl-C'])(
  'npm run mrms: %s stops the follower and exits 0',
  async (how) => {
    const feed = path.join(dir, 'mrms');
    await fs.mkdir(feed);
    await fs.copyFile(mrmsSample(REFLECTIVITY_SAMPLE), path.join(feed, REFLECTIVITY_SAMPLE));
    const adminPort = await freePort();
    const script = runNpmScript(['run', 'mrms'], {
      MRMS_SOURCE: feed,
      RADAR_DATA_DIR: path.join(dir, 'data'),
      ADMIN_PORT: String(adminPort),
      // No PrecipFlag in this feed: publish untyped at once rather than after the 60 s wait.
      MRMS_TYPE_WAIT_S: '0',
    });
    running.push(script);
    await script.waitFor(/mrms frame published/);
    expect((await fs.readdir(path.join(dir, 'data'))).filter((f) => !f.startsWith('.'))).toEqual([
      '202304061200.pmtiles',
    ]);
    expect(await acceptsConnections(adminPort)).toBe(true);

    expect(await stop(script, how)).toEqual({ code: 0 });
    expect(script.output()).toContain('shutdown complete');
    expect(await acceptsConnections(adminPort)).toBe(false);
  },
);
