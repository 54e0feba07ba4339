/**
 * The Leaflet and OpenLayers example pages (bundled like the viewer, served beside it) in
 * Chromium against the embedded service with real simulator frames: radar pixels of the
 * palette appear, tiles come through the z/x/y route with both credentials, and the page makes
 * no request outside the service's origin.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildViewer } from '../../tools/build-viewer';
import { launchChromium, type Chromium } from '../harness/browser';
import { publishRadarFrames, startViewerApi, type ViewerApi } from '../harness/browser-api';
import { APPS, KEYS } from '../harness/embedded-api';
import { countPalettePixels, decodePng } from '../harness/palette-pixels';

jest.setTimeout(120_000);

let workDir: string;
let api: ViewerApi;
let browser: Chromium;

beforeAll(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-examples-'));
  const assetsDir = await buildViewer({ outDir: path.join(workDir, 'public') });
  api = await startViewerApi({ assetsDir, demo: { apiKey: KEYS.good, appId: APPS.web } });
  await publishRadarFrames(api, 1);
  browser = await launchChromium({ viewport: { width: 1024, height: 700 } });
});

afterAll(async () => {
  await browser?.close();
  await api?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

it.each(['leaflet', 'openlayers'])('%s page shows radar from the z/x/y route', async (name) => {
  const page = await browser.context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (req) => requests.push(req.url()));
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${api.baseUrl}/viewer/${name}.html`);
  await page.waitForFunction(() => Number(document.body.dataset.tilesLoaded ?? 0) >= 4, null, {
    timeout: 30_000,
  });
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(500); // last fade-in
  expect(await page.getAttribute('body', 'data-error')).toBeNull();

  const pixels = countPalettePixels(decodePng(await page.locator('#map').screenshot()));
  console.info(`[map-examples] ${name}: ${JSON.stringify(pixels)}, ${requests.length} requests`);
  expect(pixels.total).toBeGreaterThan(2_000);
  expect(pixels.colours).toBeGreaterThanOrEqual(4);

  const tileRequests = requests.filter((u) => /\/tiles\/\d{12}\/\d+\/\d+\/\d+\.png$/.test(u));
  expect(tileRequests.length).toBeGreaterThanOrEqual(4);
  const foreign = requests.filter(
    (u) => !u.startsWith(`${api.baseUrl}/`) && !u.startsWith('data:') && !u.startsWith('blob:'),
  );
  expect(foreign).toEqual([]);
  expect(errors).toEqual([]);
  await page.close();
});
