/**
 * The nowcast end to end on the production shape: the real `npm run simulate` process (its
 * storms drift) uploads its observed frames and then the six forecast frames of the newest one
 * into the bucket; the ingest worker validates and catalogues them in Redis; both replicas list
 * the same base in `/status.json` `forecasts` (never in `timestamps`) and serve every lead's
 * archive, TileJSON (with the forecast record and the motion field) and tiles.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { PMTiles } from 'pmtiles';
import { forecastValidTimestamp } from '../../src/domain/forecast-frames';
import { backendEnv } from '../../tools/stack/backend-env';
import { createBufferSource } from '../fixtures/buffer-source';
import { request } from '../harness/http-client';
import { startProductionStack, stackAuth, type ProductionStack } from '../harness/production-stack';
import { waitFor } from '../harness/wait';

jest.setTimeout(240_000);

const SIMULATE = path.resolve(__dirname, '../../dist/bin/simulate.js');
const LEADS = [10, 20, 30, 40, 50, 60];

interface Status {
  latest: string;
  timestamps: string[];
  forecasts: Array<{ base: string; lead: number; valid: string }>;
}

let stack: ProductionStack;
beforeAll(async () => {
  stack = await startProductionStack({ replicas: 2 });
});
afterAll(() => stack?.stop());

/** `npm run simulate --once` uploading to the stack's bucket; resolves with its exit. */
function simulateIntoBucket(): Promise<{ code: number; stderr: string }> {
  const args = ['--backfill', '6', '--max-zoom', '3', '--workers', '1', '--once'];
  const env = { PATH: process.env.PATH ?? '', ...backendEnv(stack.redis.url, stack.s3) };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SIMULATE, ...args],
      { env, encoding: 'utf8' },
      (error, _o, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stderr }),
    );
  });
}

const get = (base: string, route: string) => request(base, route, { headers: stackAuth() });

it('lists and serves the simulator’s forecast frames on every replica, apart from the observed ones', async () => {
  expect(await simulateIntoBucket()).toMatchObject({ code: 0 });

  let seen: Status[] = [];
  await waitFor(
    async () => {
      seen = await Promise.all(
        stack.baseUrls.map(async (url) => (await get(url, '/status.json')).json<Status>()),
      );
      return seen.every((s) => s.forecasts.length === LEADS.length && s.timestamps.length === 6);
    },
    60_000,
    'six observed frames and six forecast frames listed on both replicas',
    100,
  );
  const [first, second] = seen as [Status, Status];
  expect(second).toEqual(first);
  const base = first.latest;
  expect(first.forecasts).toEqual(
    LEADS.map((lead) => ({ base, lead, valid: forecastValidTimestamp({ base, lead }) })),
  );
  expect(first.timestamps.every((t) => /^[0-9]{12}$/.test(t))).toBe(true);

  for (const [i, url] of stack.baseUrls.entries()) {
    const { lead } = first.forecasts[i === 0 ? 0 : LEADS.length - 1]!;
    const archivePath = `/forecasts/${base}/${lead}.pmtiles`;
    const whole = await get(url, archivePath);
    expect(whole.status).toBe(200);
    expect(whole.headers['content-type']).toBe('application/vnd.pmtiles');
    expect(whole.headers['x-ratelimit-limit']).toMatch(/^[0-9]+$/);
    const archive = new PMTiles(createBufferSource(whole.body, archivePath));
    const metadata = (await archive.getMetadata()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      kind: 'forecast',
      forecast: { base, lead, valid: forecastValidTimestamp({ base, lead }), leads: LEADS },
    });

    const tileJson = (await get(url, `/forecasts/${base}/${lead}.json`)).json<{
      tiles: string[];
      forecast: { base: string; lead: number };
      motion: { encoding: string; width: number; height: number; u: string; v: string };
    }>();
    expect(tileJson.forecast).toMatchObject({ base, lead });
    expect(tileJson.motion.encoding).toBe('int8-base64');
    expect(Buffer.from(tileJson.motion.u, 'base64')).toHaveLength(
      tileJson.motion.width * tileJson.motion.height,
    );
    expect(tileJson.tiles[0]).toContain(`/forecasts/${base}/${lead}/{z}/{x}/{y}.png`);

    const tile = await get(url, `/forecasts/${base}/${lead}/0/0/0.png`);
    expect([200, 204]).toContain(tile.status);
    const scheme = await get(url, `/forecasts/${base}/${lead}/cividis/0/0/0.png`);
    expect(scheme.status).toBe(tile.status);

    // The forecast's valid time is never an observed URL's; the observed route refuses its key.
    expect((await get(url, `/tiles/forecast-${base}-010.pmtiles`)).status).toBe(400);
  }
});
