/**
 * The viewer in Debian's Chromium (headless, software WebGL) against the embedded service
 * serving real simulator frames: radar of the NWS palette appears over CONUS, the colour
 * scheme picker and the legend follow `/legend.json` and the map's pixels change to the
 * picked scheme's colours, play moves through the frames, and wrong credentials and 429 each
 * get a clear message. Chromium missing is a failure, not a skip (see test/harness/browser.ts).
 *
 * The screenshot goes to a temp dir; set RADAR_VIEWER_SCREENSHOT=docs/viewer.png to refresh
 * the README's copy.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import {
  buildViewerInTempDir,
  DEMO_CREDENTIALS,
  mapIdle,
  type ViewerWindow,
} from '../harness/viewer-page';
import { launchChromium, type Chromium } from '../harness/browser';
import { publishRadarFrames, startViewerApi, type ViewerApi } from '../harness/browser-api';
import { APPS, KEYS } from '../harness/embedded-api';
import { request } from '../harness/http-client';
import { COLOUR_SCHEMES, schemeRgba } from '../../src/palette/colour-schemes';
import { countPalettePixels, decodePng, type StepColours } from '../harness/palette-pixels';

const FRAMES = 8;

let workDir: string;
let api: ViewerApi;
let browser: Chromium;
let page: Page;
let timestamps: string[]; // newest first
const pageErrors: string[] = [];

beforeAll(async () => {
  const built = await buildViewerInTempDir('radar-viewer-e2e-');
  workDir = built.workDir;
  const { assetsDir } = built;
  api = await startViewerApi({ assetsDir, demo: DEMO_CREDENTIALS });
  timestamps = await publishRadarFrames(api, FRAMES);
  browser = await launchChromium({ timezoneId: 'America/Chicago' });
  page = await browser.context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await api?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

it('serves the page and its assets without credentials', async () => {
  const redirect = await fetch(`${api.baseUrl}/viewer`, { redirect: 'manual' });
  expect(redirect.status).toBe(301);
  expect(redirect.headers.get('location')).toBe('/viewer/');
  const html = await fetch(`${api.baseUrl}/viewer/`);
  expect(html.status).toBe(200);
  expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(html.headers.get('content-security-policy')).toContain("script-src 'self'");
  expect(await html.text()).toContain('<script type="module" src="app.js">');
  const config = await fetch(`${api.baseUrl}/viewer/config.json`);
  expect(await config.json()).toEqual({
    apiBaseUrl: null,
    demo: { apiKey: KEYS.good, appId: APPS.web },
  });
  for (const asset of ['app.js', 'app.css', 'maplibre-gl-worker.mjs', 'basemap.json']) {
    expect((await fetch(`${api.baseUrl}/viewer/${asset}`)).status).toBe(200);
  }
  const head = await fetch(`${api.baseUrl}/viewer/app.js`, { method: 'HEAD' });
  expect(head.status).toBe(200);
  expect(head.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  expect(Number(head.headers.get('content-length'))).toBeGreaterThan(100_000);
  const etag = head.headers.get('etag')!;
  // Raw request: fetch() adds `Cache-Control: no-cache` to conditional requests, defeating them.
  expect(
    (await request(api.baseUrl, '/viewer/app.js', { headers: { 'If-None-Match': etag } })).status,
  ).toBe(304);
  expect((await fetch(`${api.baseUrl}/viewer/..%2Fpackage.json`)).status).toBe(404);
  expect((await fetch(`${api.baseUrl}/viewer/nothing.js`)).status).toBe(404);
});

it('shows palette-coloured radar over CONUS with the demo credentials pre-filled', async () => {
  await page.goto(`${api.baseUrl}/viewer/`);
  await page.waitForSelector('body[data-radar-state="ready"][data-frame-loaded="true"]', {
    timeout: 30_000,
  });
  await mapIdle(page);
  expect(await page.inputValue('#api-key')).toBe(KEYS.good);
  expect(await page.getAttribute('#time-utc', 'data-timestamp')).toBe(timestamps[0]);
  expect(await page.textContent('#frame-count')).toBe(`Frame ${FRAMES} of ${FRAMES}`);
  expect(await page.textContent('#health')).toContain('healthy');
  expect(await page.textContent('#quota')).toMatch(/Requests left: \d+\/1000/);
  await page.waitForSelector('#legend[data-scheme="nws"]', { timeout: 30_000 });
  // Three ramps (rain, snow, hail) of 15 steps each.
  expect(await page.locator('.legend-swatch').count()).toBe(45);
  expect(
    await page
      .locator('.legend-ramp')
      .evaluateAll((els) => els.map((el) => (el as HTMLElement).dataset.type)),
  ).toEqual(['rain', 'snow', 'hail']);
  // The radar's credit comes from the shown archive's metadata (here the simulator's).
  await page.waitForFunction(
    () => document.querySelector('.maplibregl-ctrl-attrib')?.textContent?.includes('simulator'),
    undefined,
    { timeout: 10_000 },
  );

  const shot = path.join(workDir, 'viewer.png');
  await page.screenshot({ path: shot });
  if (process.env.RADAR_VIEWER_SCREENSHOT)
    fs.copyFileSync(shot, process.env.RADAR_VIEWER_SCREENSHOT);

  const pixels = await mapPixels();
  const outside = pixels.total - pixels.inBoxes;
  expect(pixels.inBoxes).toBeGreaterThan(5_000);
  expect(pixels.coloursInBoxes).toBeGreaterThanOrEqual(5); // several reflectivity bands, not one flat colour
  expect(outside).toBeLessThan(pixels.inBoxes / 100);
});

/** Colours of a scheme's rain steps (the simulator's frames are untyped), as the table has them. */
const stepsOf = (id: string): StepColours =>
  schemeRgba(COLOUR_SCHEMES.find((s) => s.id === id)!).slice(1, 16);

/** Colours of a scheme's legend swatches: rain, snow and hail, each in step order. */
const swatchesOf = (id: string): StepColours => {
  const rgba = schemeRgba(COLOUR_SCHEMES.find((s) => s.id === id)!);
  return [...rgba.slice(1, 16), ...rgba.slice(17, 32), ...rgba.slice(33, 48)];
};

/** Pixels of the map alone (panels and controls hidden) in `steps`' colours, CONUS boxed. */
async function mapPixels(steps?: StepColours) {
  const hide = await page.addStyleTag({
    content: 'aside, .maplibregl-control-container { display: none !important; }',
  });
  const box = await page.evaluate(() => {
    const map = (window as unknown as ViewerWindow).radarViewer.map;
    const nw = map.project([-125, 50]);
    const se = map.project([-66, 24]);
    return {
      left: Math.floor(nw.x),
      top: Math.floor(nw.y),
      right: Math.ceil(se.x),
      bottom: Math.ceil(se.y),
    };
  });
  const png = decodePng(await page.locator('#map').screenshot());
  await hide.evaluate((style) => (style as Element).remove());
  return countPalettePixels(png, [box], steps);
}

it('switches type colours off and on: the snow and hail ramps go, the map keeps its rain', async () => {
  await page.waitForSelector('#legend[data-scheme] #scheme:enabled', { timeout: 30_000 });
  const visibleRamps = () =>
    page
      .locator('.legend-ramp[data-type]')
      .evaluateAll((els) =>
        els
          .filter((el) => (el as HTMLElement).offsetHeight > 0)
          .map((el) => (el as HTMLElement).dataset.type),
      );
  expect(await page.isChecked('#type-colours')).toBe(true);
  expect(await visibleRamps()).toEqual(['rain', 'snow', 'hail']);
  await page.uncheck('#type-colours');
  await page.waitForSelector('#legend[data-type-colours="off"]');
  expect(await visibleRamps()).toEqual(['rain']);
  await page.waitForSelector('body[data-frame-loaded="true"]', { timeout: 30_000 });
  await mapIdle(page);
  // The simulator's frames are untyped: without type colours they look exactly as before.
  expect((await mapPixels(stepsOf('nws'))).inBoxes).toBeGreaterThan(5_000);
  await page.check('#type-colours');
  await page.waitForSelector('#legend[data-type-colours="on"]');
  expect(await visibleRamps()).toEqual(['rain', 'snow', 'hail']);
});

it('switches colour scheme: picker and legend from /legend.json, the map in its colours', async () => {
  // The legend the page reads, with one scheme renamed: the picker must show what it says.
  await page.route('**/legend.json', async (route) => {
    const response = await route.fetch();
    if (!response.ok()) return route.fulfill({ response });
    const doc = (await response.json()) as { schemes: Array<{ id: string; name: string }> };
    doc.schemes.find((s) => s.id === 'cividis')!.name = 'Cividis, as the legend says';
    await route.fulfill({ response, json: doc });
  });
  try {
    await connectWith(KEYS.good, APPS.web); // a new session reads the legend again
    await page.waitForSelector(
      '#scheme option[value="cividis"]:text("Cividis, as the legend says")',
      {
        state: 'attached',
        timeout: 30_000,
      },
    );
    const options = await page
      .locator('#scheme option')
      .evaluateAll((els) => els.map((el) => (el as HTMLOptionElement).value));
    expect(options).toEqual(COLOUR_SCHEMES.map((s) => s.id));

    await page.selectOption('#scheme', 'cividis');
    await page.waitForSelector('#legend[data-scheme="cividis"]');
    const swatches = await page
      .locator('.legend-swatch')
      .evaluateAll((els) => els.map((el) => getComputedStyle(el).backgroundColor));
    expect(swatches).toEqual(swatchesOf('cividis').map(([r, g, b]) => `rgb(${r}, ${g}, ${b})`));
    await page.waitForSelector('body[data-frame-loaded="true"]', { timeout: 30_000 });
    await mapIdle(page);
    const cividis = await mapPixels(stepsOf('cividis'));
    const nwsLeft = await mapPixels(stepsOf('nws'));
    expect(cividis.inBoxes).toBeGreaterThan(5_000);
    expect(cividis.coloursInBoxes).toBeGreaterThanOrEqual(5);
    expect(cividis.total - cividis.inBoxes).toBeLessThan(cividis.inBoxes / 100);
    expect(nwsLeft.total).toBeLessThan(cividis.inBoxes / 100);
    expect(await page.evaluate(() => localStorage.getItem('radar-viewer.scheme'))).toBe('cividis');

    await page.selectOption('#scheme', 'nws');
    await page.waitForSelector('#legend[data-scheme="nws"]');
    await page.waitForSelector('body[data-frame-loaded="true"]', { timeout: 30_000 });
    await mapIdle(page);
    const nws = await mapPixels(stepsOf('nws'));
    expect(nws.inBoxes).toBeGreaterThan(5_000);
    expect((await mapPixels(stepsOf('cividis'))).total).toBeLessThan(nws.inBoxes / 100);
  } finally {
    await page.unroute('**/legend.json');
  }
  expect(pageErrors).toEqual([]);
}, 90_000);

it('play advances through the frames', async () => {
  const seen = new Set<string>();
  await page.click('#play');
  expect(await page.textContent('#play')).toBe('Pause');
  const started = Date.now();
  while (seen.size < 4 && Date.now() - started < 20_000) {
    seen.add((await page.getAttribute('#time-utc', 'data-timestamp')) ?? '');
    await page.waitForTimeout(100);
  }
  await page.click('#play');
  expect(await page.textContent('#play')).toBe('Play');
  expect(seen.size).toBeGreaterThanOrEqual(4);
  for (const ts of seen) expect(timestamps).toContain(ts);
  // No nowcast published, so no motion field: frames change without interpolation.
  const interpolation = await page.evaluate(() => {
    const session = (
      window as unknown as {
        radarViewer: {
          session(): { interpolation: { hasMotion(): boolean; stats(): { pictures: number } } };
        };
      }
    ).radarViewer.session();
    return {
      motion: session.interpolation.hasMotion(),
      pictures: session.interpolation.stats().pictures,
    };
  });
  expect(interpolation).toEqual({ motion: false, pictures: 0 });
  expect(await page.getAttribute('#timeline', 'data-forecasts')).toBe('0');
  expect(await page.getAttribute('body', 'data-frame-kind')).toBe('observed');
});

async function connectWith(apiKey: string, appId: string): Promise<void> {
  await page
    .locator('#credentials')
    .evaluate((details) => ((details as HTMLDetailsElement).open = true));
  await page.fill('#api-key', apiKey);
  await page.fill('#app-id', appId);
  await page.click('#credentials-form button[type="submit"]');
}

it('says clearly when the credentials are wrong', async () => {
  await connectWith('rk_wrong-key-0123456789', APPS.web);
  await page.waitForSelector('#message[data-kind="auth"]', { state: 'visible', timeout: 30_000 });
  expect(await page.textContent('#message')).toBe(
    'API key or app id not accepted (401 Unauthorized): check both values.',
  );
  expect(await page.getAttribute('body', 'data-radar-state')).toBe('auth-error');
}, 60_000);

it('says clearly when the rate limit is reached (429)', async () => {
  // Archive ranges are immutable and cached by the browser: start cold, as a new visitor would.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.clearBrowserCache');
  await connectWith(KEYS.limited, APPS.web); // 3 requests per window
  // A fresh page load with the remembered key, as a new visitor, then the loop: the newest
  // frame alone may fit in the 3 requests; animating the other frames cannot.
  await page.reload();
  await page.waitForSelector('body[data-radar-state="ready"], #message[data-kind="rate-limit"]', {
    timeout: 30_000,
  });
  if ((await page.getAttribute('body', 'data-radar-state')) === 'ready') await page.click('#play');
  await page.waitForSelector('#message[data-kind="rate-limit"]', {
    state: 'visible',
    timeout: 30_000,
  });
  expect(await page.textContent('#message')).toMatch(
    /^Rate limit reached \(429 Too Many Requests\): .*Retrying in \d+ s\.$/,
  );
  expect(await page.getAttribute('body', 'data-radar-state')).toBe('rate-limited');
  expect(await page.textContent('#quota')).toMatch(/Requests left: 0\/3/);
  expect(pageErrors).toEqual([]);
}, 90_000);
