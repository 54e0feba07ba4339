/**
 * Forecast frames through the production shape: an ingest worker and two replicas sharing
 * Redis (catalog, forecast manifest, keys, limits, usage) and an S3 endpoint. A base is listed
 * only once every lead is in the bucket, identically on both replicas; its frames are served
 * on all five routes under the archive contract (credentials, one shared rate-limit point per
 * request, usage counted); a newer base replaces it in the listing while it stays readable for
 * the grace, then it answers 404 and its objects are gone from the bucket; forecast frames
 * never enter `timestamps`; an invalid forecast object is rejected, counted once by reason.
 */
import { Client } from 'minio';
import type { UsageReport } from '../../src/domain/usage-report';
import { buildArchive } from '../fixtures/archives';
import { scrape, sample } from '../harness/fault-stack';
import { forecastArchive, forecastCycleArchives } from '../harness/forecast-archives';
import { request } from '../harness/http-client';
import { startProductionStack, stackAuth, type ProductionStack } from '../harness/production-stack';
import { recentTimestamp } from '../harness/timestamps';
import { waitFor } from '../harness/wait';

jest.setTimeout(120_000);

const GRACE_S = 8;
const LEADS = [10, 20, 30];
const OLD_BASE = recentTimestamp(2);
const NEW_BASE = recentTimestamp(1);
const USAGE_KEY = { id: 'forecast-usage', apiKey: 'rk_forecast-usage-0123456789', limit: 8 };
let stack: ProductionStack;

interface Status {
  latest: string;
  timestamps: string[];
  forecasts: Array<{ base: string; lead: number; valid: string }>;
}
const status = async (url: string) =>
  (await request(url, '/status.json', { headers: stackAuth() })).json<Status>();
const getOn = (url: string, path: string, headers = stackAuth()) => request(url, path, { headers });

/** Resolves once the ingest worker completed a whole pass that started after the call. */
async function ingestPasses(count = 2): Promise<void> {
  for (let i = 0; i < count; i++) {
    const since = Date.now();
    await waitFor(
      () => Date.now() - stack.ingest.worker.lastSuccessAgeS() * 1000 > since,
      15_000,
      'an ingest pass',
      50,
    );
  }
}

async function listedEverywhere(base: string): Promise<Status[]> {
  let seen: Status[] = [];
  await waitFor(
    async () => {
      seen = await Promise.all(stack.baseUrls.map(status));
      return seen.every(
        (s) => s.forecasts.length === LEADS.length && s.forecasts[0]!.base === base,
      );
    },
    20_000,
    `${base} listed on every replica`,
    50,
  );
  return seen;
}

beforeAll(async () => {
  stack = await startProductionStack({
    replicas: 2,
    env: { RADAR_FORECAST_GRACE_S: String(GRACE_S), RADAR_USAGE_FLUSH_S: '1' },
  });
  await stack.addKeys([USAGE_KEY]);
  await stack.publish(OLD_BASE, buildArchive(OLD_BASE));
});
afterAll(() => stack?.stop());

it('lists a base only once every lead is ingested, the same on both replicas, never in timestamps', async () => {
  const frames = forecastCycleArchives(OLD_BASE, { leads: LEADS });
  for (const [name, bytes] of frames.slice(0, 2)) await stack.s3.put(name, bytes);
  await ingestPasses();
  for (const url of stack.baseUrls) {
    expect((await status(url)).forecasts).toEqual([]);
    expect((await getOn(url, `/forecasts/${OLD_BASE}/10.pmtiles`)).status).toBe(404);
  }
  const gauges = async () => {
    const text = await scrape(stack.replicas[0]!.adminPort);
    return [
      sample(text, 'radar_forecast_age_seconds'),
      sample(text, 'radar_forecast_frames_listed'),
    ];
  };
  expect(await gauges()).toEqual([NaN, 0]);
  await stack.s3.put(...frames[2]!);
  const [a, b] = await listedEverywhere(OLD_BASE);
  expect(a!.forecasts).toEqual(b!.forecasts);
  expect(a!.forecasts.map((f) => f.lead)).toEqual(LEADS);
  for (const s of [a!, b!]) expect([s.latest, s.timestamps]).toEqual([OLD_BASE, [OLD_BASE]]);
  const [age, listed] = await gauges();
  const baseAgeS =
    (Date.now() -
      Date.parse(
        `${OLD_BASE.slice(0, 4)}-${OLD_BASE.slice(4, 6)}-${OLD_BASE.slice(6, 8)}T${OLD_BASE.slice(8, 10)}:${OLD_BASE.slice(10)}:00Z`,
      )) /
    1000;
  expect(listed).toBe(LEADS.length);
  expect(age!).toBeGreaterThan(0);
  expect(age!).toBeLessThanOrEqual(baseAgeS + 1);
});

it('serves all five routes on both replicas, tiles and archives with equal validators; credentials are required', async () => {
  const frame = `/forecasts/${OLD_BASE}/20`;
  for (const suffix of ['.pmtiles', '.json', '/0/0/0.png', '/cividis.json', '/cividis/0/0/0.png']) {
    const answers = await Promise.all(stack.baseUrls.map((url) => getOn(url, `${frame}${suffix}`)));
    for (const res of answers) {
      expect([suffix, res.status]).toEqual([suffix, 200]);
      expect(res.headers['cache-control']).toBe('private, max-age=31536000, immutable');
      expect(res.headers['x-ratelimit-limit']).toMatch(/^[0-9]+$/);
    }
    // A TileJSON names its replica's own address (a different document); bytes are equal.
    if (!suffix.endsWith('.json')) expect(answers[0]!.headers.etag).toBe(answers[1]!.headers.etag);
    const anonymous = await request(stack.baseUrls[0]!, `${frame}${suffix}`);
    expect(anonymous.status).toBe(401);
  }
  const doc = (await getOn(stack.baseUrls[1]!, `${frame}.json`)).json<Record<string, unknown>>();
  expect(doc.forecast).toMatchObject({ base: OLD_BASE, lead: 20, leads: LEADS });
  expect(doc.motion).toMatchObject({ encoding: 'int8-base64' });
});

it('one shared rate-limit point per request across replicas, and usage counted', async () => {
  const headers = stackAuth(USAGE_KEY.apiKey);
  const statuses: number[] = [];
  for (let i = 0; i < USAGE_KEY.limit + 1; i++) {
    const url = stack.baseUrls[i % 2]!;
    statuses.push((await getOn(url, `/forecasts/${OLD_BASE}/30/0/0/0.png`, headers)).status);
  }
  expect(statuses).toEqual([...Array<number>(USAGE_KEY.limit).fill(200), 429]);
  const admin = `http://127.0.0.1:${stack.replicas[0]!.adminPort}`;
  let report: UsageReport | undefined;
  await waitFor(
    async () => {
      report = (await request(admin, '/usage?since=1h')).json<UsageReport>();
      return report.keys.find((k) => k.key === USAGE_KEY.id)?.requests === USAGE_KEY.limit + 1;
    },
    15_000,
    'usage of the forecast requests flushed',
    200,
  );
});

it('a newer base replaces the listing; the old one stays readable for the grace, then 404 and deleted', async () => {
  await stack.publish(NEW_BASE, buildArchive(NEW_BASE));
  for (const [name, bytes] of forecastCycleArchives(NEW_BASE, { leads: LEADS }))
    await stack.s3.put(name, bytes);
  const listed = await listedEverywhere(NEW_BASE);
  for (const url of stack.baseUrls)
    expect((await getOn(url, `/forecasts/${OLD_BASE}/10.pmtiles`)).status).toBe(200);
  for (const s of listed) expect(s.timestamps).toEqual([NEW_BASE, OLD_BASE]);

  await waitFor(
    async () => {
      const answers = await Promise.all(
        stack.baseUrls.map((url) => getOn(url, `/forecasts/${OLD_BASE}/10.json`)),
      );
      return answers.every((res) => res.status === 404);
    },
    (GRACE_S + 15) * 1000,
    'the old base expired on every replica',
    100,
  );
  const minio = new Client({
    endPoint: new URL(stack.s3.endpoint).hostname,
    port: Number(new URL(stack.s3.endpoint).port),
    useSSL: false,
    accessKey: stack.s3.accessKey,
    secretKey: stack.s3.secretKey,
    region: stack.s3.region,
  });
  const names = async () => {
    const found: string[] = [];
    for await (const item of minio.listObjectsV2(stack.s3.bucket, '', true))
      found.push((item as { name: string }).name);
    return found;
  };
  await waitFor(
    async () => !(await names()).some((n) => n.startsWith(`forecast-${OLD_BASE}-`)),
    15_000,
    'the old base deleted from the bucket',
    200,
  );
  const left = await names();
  for (const lead of LEADS)
    expect(left).toContain(`forecast-${NEW_BASE}-${String(lead).padStart(3, '0')}.pmtiles`);
  for (const url of stack.baseUrls) {
    const s = await status(url);
    expect(s.timestamps).toEqual([NEW_BASE, OLD_BASE]);
    expect(s.forecasts.map((f) => f.base)).toEqual([NEW_BASE, NEW_BASE, NEW_BASE]);
  }
});

it('an invalid forecast object is rejected, counted once by its reason', async () => {
  const bad = forecastArchive(
    { base: NEW_BASE, lead: 40 },
    { leads: [40], overrides: { kind: 'observed' } },
  );
  await stack.s3.put(`forecast-${NEW_BASE}-040.pmtiles`, bad);
  await waitFor(
    async () =>
      sample(await scrape(stack.ingest.adminPort), 'radar_ingest_rejected_total', {
        reason: 'not-forecast',
      }) === 1,
    15_000,
    'the rejection counted',
    100,
  );
  await ingestPasses();
  expect(
    sample(await scrape(stack.ingest.adminPort), 'radar_ingest_rejected_total', {
      reason: 'not-forecast',
    }),
  ).toBe(1);
  for (const url of stack.baseUrls)
    expect((await getOn(url, `/forecasts/${NEW_BASE}/40.pmtiles`)).status).toBe(404);
});
