/**
 * The Leaflet and OpenLayers example pages (bundled like the viewer, served beside it) in
 * Chromium against the embedded service with real simulator frames: the viewer's packaged base
 * map is drawn (land and sea where they are, US states in their colour), radar pixels of the
 * palette appear, the time label names a published frame, the latest frames animate, tiles
 * come through the z/x/y route with both credentials, and the page makes no request outside
 * the service's origin.
 */
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import type { PNG } from 'pngjs';
import { BASEMAP_COLOURS } from '../../src/viewer/basemap';
import { buildViewerInTempDir, DEMO_CREDENTIALS } from '../harness/viewer-page';
import { launchChromium, type Chromium } from '../harness/browser';
import { publishRadarFrames, startViewerApi, type ViewerApi } from '../harness/browser-api';
import { countPalettePixels, decodePng } from '../harness/palette-pixels';

jest.setTimeout(120_000);

let workDir: string;
let api: ViewerApi;
let browser: Chromium;
let published: string[];

beforeAll(async () => {
  const built = await buildViewerInTempDir('radar-examples-');
  workDir = built.workDir;
  const { assetsDir } = built;
  api = await startViewerApi({ assetsDir, demo: DEMO_CREDENTIALS });
  published = await publishRadarFrames(api, 3);
  browser = await launchChromium({ viewport: { width: 1024, height: 700 } });
});

afterAll(async () => {
  await browser?.close();
  await api?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

/** Places outside the radar's coverage (south of 24° N), so the base map alone is drawn there. */
const PLACES = {
  /** Zacatecas, Mexico: land outside the US. */
  land: { lon: -101.5, lat: 22.5, colour: BASEMAP_COLOURS.land },
  /** Bay of Campeche: sea. */
  sea: { lon: -94.5, lat: 20.5, colour: BASEMAP_COLOURS.background },
};

const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

function pixel(png: PNG, x: number, y: number): number[] {
  const i = (Math.round(y) * png.width + Math.round(x)) * 4;
  return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
}

const near = (a: number[], b: number[]) => a.every((v, i) => Math.abs(v - b[i]!) <= 3);

/** Pixels of exactly (±3) `hex`. */
function countColour(png: PNG, hex: string): number {
  const want = rgb(hex);
  let n = 0;
  for (let i = 0; i < png.data.length; i += 4)
    if (near([png.data[i]!, png.data[i + 1]!, png.data[i + 2]!], want)) n++;
  return n;
}

/** `2026-01-15 12:04 UTC` for `202601151204`, written here independently of the page. */
const utcLabel = (t: string) =>
  `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)} ${t.slice(8, 10)}:${t.slice(10, 12)} UTC`;

async function shownTimestamp(page: Page): Promise<{ timestamp: string; text: string }> {
  const label = page.locator('#time');
  return {
    timestamp: (await label.getAttribute('data-timestamp')) ?? '',
    text: (await label.textContent()) ?? '',
  };
}

it.each(['leaflet', 'openlayers'])(
  '%s page: base map, radar from the z/x/y route, the frame time, the latest frames animating',
  async (name) => {
    const page = await browser.context.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (req) => requests.push(req.url()));
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${api.baseUrl}/viewer/${name}.html`);
    await page.waitForFunction(() => Number(document.body.dataset.tilesLoaded ?? 0) >= 4, null, {
      timeout: 30_000,
    });
    await page.waitForSelector('#time[data-timestamp]', { timeout: 30_000 });
    await page.waitForLoadState('networkidle');
    expect(await page.getAttribute('body', 'data-error')).toBeNull();

    // The time label names a published frame, in UTC.
    const first = await shownTimestamp(page);
    expect(published).toContain(first.timestamp);
    expect(first.text).toBe(utcLabel(first.timestamp));

    const png = decodePng(await page.locator('#map').screenshot());
    const radar = countPalettePixels(png);
    const states = countColour(png, BASEMAP_COLOURS.states);
    const places = await page.evaluate((list) => {
      // The page's test handle (web/examples/*-main.ts).
      const handle = window as unknown as {
        radarExample: { project(lon: number, lat: number): { x: number; y: number } };
      };
      const project = handle.radarExample.project;
      return Object.fromEntries(
        Object.entries(list).map(([key, p]) => [key, project(p.lon, p.lat)]),
      );
    }, PLACES);
    const seen = Object.fromEntries(
      Object.entries(PLACES).map(([key, p]) => {
        const { x, y } = places[key]!;
        const onScreen = x >= 0 && y >= 0 && x < png.width && y < png.height;
        return [key, { onScreen, matches: onScreen && near(pixel(png, x, y), rgb(p.colour)) }];
      }),
    );
    console.info(
      `[map-examples] ${name}: radar ${JSON.stringify(radar)}, state-fill pixels ${states}, places ${JSON.stringify(seen)}, ${requests.length} requests`,
    );
    expect(seen).toEqual({
      land: { onScreen: true, matches: true },
      sea: { onScreen: true, matches: true },
    });
    expect(states).toBeGreaterThan(20_000); // the US states' fill, under and around the radar
    expect(radar.total).toBeGreaterThan(2_000);
    expect(radar.colours).toBeGreaterThanOrEqual(4);

    // The loop moves on to another published frame by itself.
    await page.waitForFunction(
      (ts) => {
        const shown = document.getElementById('time')?.dataset.timestamp;
        return shown !== undefined && shown !== ts;
      },
      first.timestamp,
      { timeout: 30_000 },
    );
    const next = await shownTimestamp(page);
    expect(published).toContain(next.timestamp);
    expect(next.text).toBe(utcLabel(next.timestamp));

    const tileRequests = requests.filter((u) => /\/tiles\/\d{12}\/\d+\/\d+\/\d+\.png$/.test(u));
    expect(tileRequests.length).toBeGreaterThanOrEqual(4);
    const foreign = requests.filter(
      (u) => !u.startsWith(`${api.baseUrl}/`) && !u.startsWith('data:') && !u.startsWith('blob:'),
    );
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  },
);
