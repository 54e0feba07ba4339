/**
 * The viewer in Debian's Chromium showing real radar: the NOAA MRMS sample of 2023-04-06
 * 12:00 UTC converted by the MRMS producer's job and served by the embedded service. The
 * squall line from Texas to the Ohio Valley must appear: many palette pixels inside a box over
 * TX-OH, and almost none where MRMS has no radar coverage (read from the decoded grid under
 * each pixel). The screenshot's path is printed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { readGrib2 } from '../../src/sources/mrms/grib2/read-grib2';
import { createMrmsPool } from '../../src/sources/mrms/mrms-frame';
import {
  buildViewerInTempDir,
  DEMO_CREDENTIALS,
  mapIdle,
  type ViewerWindow,
} from '../harness/viewer-page';
import { launchChromium, type Chromium } from '../harness/browser';
import { startViewerApi, type ViewerApi } from '../harness/browser-api';
import { countPalettePixels, decodePng } from '../harness/palette-pixels';
import { SAMPLE_TIMESTAMP } from '../fixtures/mrms-frames';
import { mrmsSample, REFLECTIVITY_SAMPLE } from '../fixtures/mrms-sample';

/** Texas to the Ohio Valley, where the line of storms stood at 12:00 UTC. */
const SQUALL_BOX = { west: -104, east: -80, south: 26, north: 42 };
/** Boxes of 2 x 2 degrees along the line, from south Texas to the Ohio Valley. */
const ALONG_THE_LINE = [
  [-98, 28],
  [-95, 30.5],
  [-92, 32.5],
  [-89, 34.5],
  [-86, 36.5],
  [-83.5, 38.5],
].map(([lon, lat]) => ({ west: lon! - 1, east: lon! + 1, south: lat! - 1, north: lat! + 1 }));

let workDir: string;
let api: ViewerApi;
let browser: Chromium;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  const built = await buildViewerInTempDir('radar-viewer-mrms-');
  workDir = built.workDir;
  const { assetsDir } = built;
  api = await startViewerApi({ assetsDir, demo: DEMO_CREDENTIALS });
  // Converted in the producer's own worker job (decode + render off the jest sandbox).
  const pool = createMrmsPool({ size: 1 });
  try {
    const bytes = fs.readFileSync(mrmsSample(REFLECTIVITY_SAMPLE));
    await api.publish(SAMPLE_TIMESTAMP, await pool.render({ name: REFLECTIVITY_SAMPLE, bytes }));
  } finally {
    await pool.close();
  }
  await api.waitForAllListed([SAMPLE_TIMESTAMP]);
  browser = await launchChromium({ timezoneId: 'UTC' });
  page = await browser.context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await api?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

it('shows the squall line from Texas to the Ohio Valley, and nothing where no radar sees', async () => {
  await page.goto(`${api.baseUrl}/viewer/`);
  await page.waitForSelector('body[data-radar-state="ready"][data-frame-loaded="true"]', {
    timeout: 60_000,
  });
  await mapIdle(page);
  expect(await page.getAttribute('#time-utc', 'data-timestamp')).toBe(SAMPLE_TIMESTAMP);
  expect(await page.textContent('#frame-count')).toBe('Frame 1 of 1');
  // An archived frame is named by its date, not by its age in hours; the quota's reset carries
  // its zone like every other time on the page.
  expect(await page.textContent('#age')).toBe('Latest frame from 2023-04-06 12:00 UTC');
  await page.waitForFunction(() =>
    /resets \d\d:\d\d:\d\d UTC\)/.test(document.getElementById('quota')?.textContent ?? ''),
  );
  // Credited to NOAA's MRMS, from the archive's metadata, not to the simulator.
  await page.waitForFunction(
    () => document.querySelector('.maplibregl-ctrl-attrib')?.textContent?.includes('MRMS'),
    undefined,
    { timeout: 10_000 },
  );
  expect(await page.textContent('.maplibregl-ctrl-attrib')).not.toContain('imulat');

  const shot = path.join(workDir, 'viewer-mrms.png');
  await page.screenshot({ path: shot });
  const kept = path.join(os.tmpdir(), `radar-viewer-mrms-${process.pid}.png`);
  fs.copyFileSync(shot, kept);
  process.stdout.write(`[screenshot] the viewer on MRMS ${SAMPLE_TIMESTAMP}: ${kept}\n`);

  // Pixels of the map alone: hide the panels and controls drawn over it.
  const hide = await page.addStyleTag({
    content: 'aside, .maplibregl-control-container { display: none !important; }',
  });
  const geometry = await page.evaluate(
    ({ box, line }) => {
      const map = (window as unknown as ViewerWindow).radarViewer.map;
      const pixelBox = (b: typeof box) => {
        const nw = map.project([b.west, b.north]);
        const se = map.project([b.east, b.south]);
        return {
          left: Math.floor(nw.x),
          top: Math.floor(nw.y),
          right: Math.ceil(se.x),
          bottom: Math.ceil(se.y),
        };
      };
      const element = document.querySelector('#map')!.getBoundingClientRect();
      const topLeft = map.unproject([0, 0]);
      const bottomRight = map.unproject([element.width, element.height]);
      return {
        box: pixelBox(box),
        line: line.map(pixelBox),
        width: element.width,
        height: element.height,
        west: topLeft.lng,
        north: topLeft.lat,
        east: bottomRight.lng,
        south: bottomRight.lat,
      };
    },
    { box: SQUALL_BOX, line: ALONG_THE_LINE },
  );
  const png = decodePng(await page.locator('#map').screenshot());
  await hide.evaluate((style) => (style as Element).remove());
  expect([png.width, png.height]).toEqual([geometry.width, geometry.height]);

  // Tiles are drawn with linear resampling, so only part of the radar pixels keep an exact
  // palette colour (edges blend with the basemap and with each other); these are counted.
  const pixels = countPalettePixels(png, [geometry.box]);
  const along = geometry.line.map((box) => countPalettePixels(png, [box]).inBoxes);
  // Strong echo (45 dBZ and more: orange, reds, magenta) was the squall line's alone.
  const strong = (counts: number[]) => counts.slice(8).reduce((a, b) => a + b, 0);
  process.stdout.write(
    `[figure] palette pixels: ${pixels.total} on the map, ${pixels.inBoxes} inside TX-OH ` +
      `(${pixels.coloursInBoxes} colours), along the line ${along.join(' / ')}; ` +
      `>= 45 dBZ: ${strong(pixels.perStepInBoxes)} of ${strong(pixels.perStep)} inside TX-OH\n`,
  );
  expect(pixels.inBoxes).toBeGreaterThan(1000);
  expect(pixels.coloursInBoxes).toBeGreaterThanOrEqual(8); // light rain to strong cores
  for (const [i, count] of along.entries())
    expect([ALONG_THE_LINE[i], count > 20]).toEqual([ALONG_THE_LINE[i], true]);
  expect(strong(pixels.perStepInBoxes)).toBeGreaterThan(25);
  expect(strong(pixels.perStepInBoxes)).toBeGreaterThan(strong(pixels.perStep) * 0.9);

  // Where MRMS has no coverage (the grid's -999 under the pixel's centre), no echo is drawn.
  const [field] = readGrib2(fs.readFileSync(mrmsSample(REFLECTIVITY_SAMPLE)), REFLECTIVITY_SAMPLE);
  const { grid, values } = field!;
  const mercY = (lat: number) => Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360));
  const [yNorth, ySouth] = [mercY(geometry.north), mercY(geometry.south)];
  const uncovered = countPalettePixels(png, [], undefined, (x, y) => {
    const lon = geometry.west + ((x + 0.5) / png.width) * (geometry.east - geometry.west);
    const m = yNorth + ((y + 0.5) / png.height) * (ySouth - yNorth);
    const lat = (Math.atan(Math.sinh(m)) * 180) / Math.PI;
    const column = Math.round((lon - grid.west) / grid.dLon);
    const row = Math.round((grid.north - lat) / grid.dLat);
    if (column < 0 || row < 0 || column >= grid.width || row >= grid.height) return true;
    return values[row * grid.width + column] === -999;
  });
  process.stdout.write(
    `[figure] palette pixels over cells without coverage: ${uncovered.inBoxes}\n`,
  );
  expect(uncovered.inBoxes).toBeLessThan(pixels.total * 0.01);
  expect(pageErrors).toEqual([]);
}, 120_000);
