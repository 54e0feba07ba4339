/**
 * The MRMS recipes as a new user meets them, run on the built entry points:
 *
 * - `RADAR_SOURCE=mrms npm start` whose source does not answer (here an HTTP listing on a
 *   loopback port nobody listens on, refused at once like a machine without a route) says so on
 *   the terminal in plain words, names MRMS in the banner, stays not ready and not healthy, and
 *   does not present simulated frames an earlier run left in the data folder as live radar.
 * - `npm run mrms -- --file <past frame> --out <dir>` refuses a frame older than
 *   `RADAR_RETENTION_S` (the service would delete it) and writes nothing; with a retention that
 *   covers it, it writes the archive.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildArchive } from '../fixtures/archives';
import { SAMPLE_TIMESTAMP } from '../fixtures/mrms-frames';
import { mrmsSample, REFLECTIVITY_SAMPLE } from '../fixtures/mrms-sample';
import { request } from '../harness/http-client';
import { MRMS_ENTRY } from '../harness/mrms-producer';
import { freePort, startApi } from '../harness/spawned-api';
import { recentTimestamp } from '../harness/timestamps';
import { waitFor } from '../harness/wait';

jest.setTimeout(90_000);

let cwd: string;
beforeEach(async () => {
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-mrms-unanswered-'));
});
afterEach(() => fs.rm(cwd, { recursive: true, force: true }));

it('says on the terminal that the MRMS source does not answer, and serves no frame as healthy', async () => {
  // Simulated frames from an earlier `npm start`, fresh enough to count as live.
  const leftOver = recentTimestamp(1);
  await fs.mkdir(path.join(cwd, 'data'));
  await fs.writeFile(path.join(cwd, 'data', `${leftOver}.pmtiles`), buildArchive(leftOver));
  const deadPort = await freePort();
  const { proc, base, admin, headers } = await startApi(cwd, {
    RADAR_SOURCE: 'mrms',
    MRMS_SOURCE: `http://127.0.0.1:${deadPort}/data/2D/ReflectivityAtLowestAltitude/`,
  });
  try {
    await proc.waitFor(/No MRMS radar yet/, 20_000);
    const terminal = proc.stderr();
    expect(terminal).toContain('Radar:   live NOAA MRMS radar (RADAR_SOURCE=mrms)');
    expect(terminal).not.toContain('simulated storms');
    // What failed, where, and the three ways on.
    expect(terminal).toMatch(/the source has not answered \(.*ECONNREFUSED/);
    expect(terminal).toContain(`Source: directory listing http://127.0.0.1:${deadPort}/`);
    expect(terminal).toContain('network');
    expect(terminal).toContain('set MRMS_SOURCE');
    expect(terminal).toContain('run the simulator instead');

    const ready = await request(admin, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.json()).toEqual({ status: 'not ready', reason: 'radar source not answered yet' });
    expect((await request(admin, '/healthz')).status).toBe(200);

    await waitFor(
      async () => (await request(base, '/status.json', { headers })).status === 200,
      30_000,
      'the left-over frame listed',
      100,
    );
    // Listed (nothing is deleted or hidden), but not presented as healthy live radar.
    expect((await request(base, '/status.json', { headers })).json()).toEqual({
      healthy: false,
      latest: leftOver,
      timestamps: [leftOver],
      forecasts: [], // one frame, or no frame 10 minutes before: no forecast base
    });
    expect(await fs.readdir(path.join(cwd, 'data'))).toEqual([`${leftOver}.pmtiles`]);
  } finally {
    expect(await proc.stop('SIGTERM')).toBe(0);
  }
});

it('refuses to convert a frame the service would delete, and converts it with a retention that covers it', async () => {
  const run = promisify(execFile);
  const args = [MRMS_ENTRY, '--file', mrmsSample(REFLECTIVITY_SAMPLE), '--out', 'past'];
  const env = { PATH: process.env.PATH ?? '' };
  const refused = await run(process.execPath, args, { cwd, env }).then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  );
  expect(refused?.code).toBe(1);
  expect(refused?.stderr).toContain(`frame ${SAMPLE_TIMESTAMP}`);
  expect(refused?.stderr).toContain('older than RADAR_RETENTION_S (21600 s, 6 h)');
  expect(refused?.stderr).toContain('Nothing was written');
  expect(refused?.stderr).toMatch(/RADAR_RETENTION_S=\d+/);
  await expect(fs.readdir(path.join(cwd, 'past'))).rejects.toThrow(/ENOENT/);

  const retention = refused?.stderr.match(/RADAR_RETENTION_S=(\d+)/)?.[1] ?? '';
  const kept = await run(process.execPath, args, {
    cwd,
    env: { ...env, RADAR_RETENTION_S: retention },
  });
  expect(kept.stderr).toContain(`wrote past/${SAMPLE_TIMESTAMP}.pmtiles`);
  expect(await fs.readdir(path.join(cwd, 'past'))).toEqual([`${SAMPLE_TIMESTAMP}.pmtiles`]);
});
