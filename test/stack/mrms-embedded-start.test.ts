/**
 * `RADAR_SOURCE=mrms npm start`: the embedded service (the built entry point, no Redis, no
 * object store) runs the MRMS follower in-process instead of the simulator. Here its source is
 * a local directory holding the real NOAA sample (`MRMS_SOURCE=/path`), so nothing reaches the
 * network: the frame is published into the data directory, listed and served, and the API's
 * own metrics count it.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { request } from '../harness/http-client';
import { seriesValue } from '../harness/mrms-producer';
import { startApi } from '../harness/spawned-api';
import { waitFor } from '../harness/wait';
import { SAMPLE_TIMESTAMP } from '../fixtures/mrms-frames';
import { mrmsSample, REFLECTIVITY_SAMPLE } from '../fixtures/mrms-sample';

jest.setTimeout(120_000);

let cwd: string;
beforeAll(async () => {
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-mrms-start-'));
  await fs.mkdir(path.join(cwd, 'mrms'));
  await fs.copyFile(mrmsSample(REFLECTIVITY_SAMPLE), path.join(cwd, 'mrms', REFLECTIVITY_SAMPLE));
});
afterAll(() => fs.rm(cwd, { recursive: true, force: true }));

it('publishes and serves MRMS frames instead of simulated ones', async () => {
  const { proc, base, admin, headers } = await startApi(cwd, {
    RADAR_SOURCE: 'mrms',
    MRMS_SOURCE: 'mrms', // relative to the working directory, like ./data
    RADAR_RETENTION_S: String(10 * 365 * 86400), // the sample is from 2023
  });
  try {
    await waitFor(
      async () => (await request(base, '/status.json', { headers })).status === 200,
      60_000,
      'a frame listed',
      200,
    );
    const status = await request(base, '/status.json', { headers });
    // Only the MRMS frame: no simulated one was made.
    expect(status.json()).toEqual({
      healthy: false,
      latest: SAMPLE_TIMESTAMP,
      timestamps: [SAMPLE_TIMESTAMP],
      forecasts: [], // one frame, or no frame 10 minutes before: no forecast base
    });
    // Beside the archive only the hidden verdict file (docs/mrms.md, "Verdicts on files").
    expect((await fs.readdir(path.join(cwd, 'data'))).filter((f) => !f.startsWith('.'))).toEqual([
      `${SAMPLE_TIMESTAMP}.pmtiles`,
    ]);
    const range = await request(base, `/tiles/${SAMPLE_TIMESTAMP}.pmtiles`, {
      headers: { ...headers, Range: 'bytes=0-16383' },
    });
    expect(range.status).toBe(206);
    // The source answered: ready, and the banner named it.
    expect((await request(admin, '/readyz')).status).toBe(200);
    expect(proc.stderr()).toContain(
      `Radar:   live NOAA MRMS radar (RADAR_SOURCE=mrms) from ${path.join(cwd, 'mrms')}`,
    );
    const metrics = (await request(admin, '/metrics')).body.toString();
    expect(seriesValue(metrics, 'radar_mrms_frames_converted_total')).toBe(1);
    expect(seriesValue(metrics, 'radar_mrms_leader')).toBe(1);
    expect(metrics).toContain('radar_http_requests_total');
  } finally {
    expect(await proc.stop('SIGTERM')).toBe(0);
  }
});
