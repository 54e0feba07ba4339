/**
 * Observed and forecast frames as one timeline: the status's `forecasts` validated, the frames
 * ordered oldest first with the forecasts after every observed frame, each marked with its kind
 * and carrying URLs that are never an observed frame's for a forecast.
 */
import { RadarResponseError } from '../../../src/client/errors';
import { parseForecastInfo } from '../../../src/client/forecast-info';
import { createRadarClient } from '../../../src/client/radar-client';
import { parseRadarStatus } from '../../../src/client/status';
import { parseTileJson, tileJsonPath, tilePath } from '../../../src/client/tiles';
import { archivePath } from '../../../src/client/archive-source';
import { uniformConusMotion } from '../../fixtures/motion-field';

const forecasts = [30, 10, 20].map((lead) => ({
  base: '202611281200',
  lead,
  valid: `2026112812${String(lead).padStart(2, '0')}`,
}));
const body = {
  healthy: true,
  latest: '202611281202',
  timestamps: ['202611281202', '202611281158', '202611281200'],
  forecasts,
};

it('status: forecasts sorted by valid time, absent read as none, malformed refused', () => {
  const status = parseRadarStatus(body);
  expect(status.forecasts.map((f) => f.lead)).toEqual([10, 20, 30]);
  expect(status.timestamps).toEqual(['202611281202', '202611281200', '202611281158']);
  const older: Record<string, unknown> = { ...body };
  delete older.forecasts;
  expect(parseRadarStatus(older).forecasts).toEqual([]);
  for (const bad of [
    { ...body, forecasts: 'none' },
    { ...body, forecasts: [{ base: '202611281200', lead: 10, valid: '202611281220' }] },
    { ...body, forecasts: [{ base: '202611281200', lead: 0, valid: '202611281200' }] },
    { ...body, forecasts: [{ base: '202611281200', lead: 1.5, valid: '202611281201' }] },
    { ...body, forecasts: [{ base: '2026112812', lead: 10, valid: '202611281210' }] },
    { ...body, forecasts: [null] },
  ]) {
    expect(() => parseRadarStatus(bad)).toThrow(RadarResponseError);
  }
});

it('timeline: observed oldest first, then forecasts later than the newest observed frame', () => {
  const client = createRadarClient({
    baseUrl: 'https://radar.example/',
    credentials: { apiKey: 'rk_x', appId: 'app' },
  });
  const frames = client.timeline(parseRadarStatus(body));
  expect(frames.map((f) => [f.kind, f.key, f.valid])).toEqual([
    ['observed', '202611281158', '202611281158'],
    ['observed', '202611281200', '202611281200'],
    ['observed', '202611281202', '202611281202'],
    // +10 is valid 12:10, after the newest observed 12:02: all three leads stay.
    ['forecast', 'forecast-202611281200-010', '202611281210'],
    ['forecast', 'forecast-202611281200-020', '202611281220'],
    ['forecast', 'forecast-202611281200-030', '202611281230'],
  ]);
  const forecast = frames[4]!;
  expect(forecast).toMatchObject({
    kind: 'forecast',
    base: '202611281200',
    lead: 20,
    validMs: Date.parse('2026-11-28T12:20:00Z'),
    archiveUrl: 'https://radar.example/forecasts/202611281200/20.pmtiles',
    tileJsonUrl: 'https://radar.example/forecasts/202611281200/20.json',
    tileUrl: 'https://radar.example/forecasts/202611281200/20/{z}/{x}/{y}.png',
  });
  expect(frames[0]).toMatchObject({
    archiveUrl: 'https://radar.example/tiles/202611281158.pmtiles',
    tileUrl: 'https://radar.example/tiles/202611281158/{z}/{x}/{y}.png',
  });
  expect(client.archiveUrl(forecast.key)).toBe(forecast.archiveUrl);
});

it('timeline: a forecast valid at or before the newest observed frame is left out', () => {
  const status = parseRadarStatus({
    ...body,
    latest: '202611281220',
    timestamps: ['202611281220'],
  });
  const frames = createRadarClient({
    baseUrl: 'http://x',
    credentials: { apiKey: 'k', appId: 'a' },
  }).timeline(status);
  expect(frames.map((f) => f.key)).toEqual(['202611281220', 'forecast-202611281200-030']);
});

it('paths: forecast keys map to /forecasts/{base}/{lead}, anything else is refused', () => {
  expect(archivePath('forecast-202611281200-030')).toBe('/forecasts/202611281200/30.pmtiles');
  expect(tileJsonPath('forecast-202611281200-060')).toBe('/forecasts/202611281200/60.json');
  expect(tilePath('forecast-202611281200-010', 4, 3, 5)).toBe(
    '/forecasts/202611281200/10/4/3/5.png',
  );
  for (const bad of ['forecast-202611281200-000', 'forecast-202611281200-0030', 'latest', '../x'])
    expect(() => archivePath(bad)).toThrow(RangeError);
});

const info = {
  base: '202611281200',
  lead: 30,
  valid: '202611281230',
  leads: [10, 20, 30, 40, 50, 60],
  method: 'test-flow 1.0',
};

it('TileJSON: a forecast frame carries its forecast record and its decoded motion', () => {
  const doc = {
    tilejson: '3.0.0',
    tiles: ['https://r.example/forecasts/202611281200/30/{z}/{x}/{y}.png'],
    minzoom: 0,
    maxzoom: 7,
    bounds: [-125, 24, -66, 50],
    forecast: info,
    motion: uniformConusMotion(0.05, -0.02),
  };
  const parsed = parseTileJson(doc);
  expect(parsed.forecast).toEqual(info);
  expect(parsed.motion?.width).toBe(128);
  expect(parsed.motion?.u[100]).toBeCloseTo(0.05, 5);
  expect(parsed.motion?.v[100]).toBeCloseTo(-0.02, 5);
  expect(() => parseTileJson({ ...doc, motion: { ...doc.motion, u: '' } })).toThrow(
    RadarResponseError,
  );
  expect(() => parseTileJson({ ...doc, forecast: { ...info, valid: '202611281220' } })).toThrow(
    RadarResponseError,
  );
});

it('forecast record: validated field by field', () => {
  expect(parseForecastInfo({ ...info, leads: [60, 10, 30] }).leads).toEqual([10, 30, 60]);
  for (const bad of [
    null,
    { ...info, base: 'x' },
    { ...info, lead: 0 },
    { ...info, leads: [10, 20] },
    { ...info, method: 1 },
  ])
    expect(() => parseForecastInfo(bad)).toThrow(RadarResponseError);
});
