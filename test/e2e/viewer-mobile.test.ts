/**
 * The viewer on a phone (390x844) and a tablet (768x1024) in Chromium: CONUS is fitted into the
 * part of the map the panel and legend leave visible, radar pixels appear there and not under
 * the panel, the panel folds, and Play stays disabled while no frame is listed.
 */
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import {
  buildViewerInTempDir,
  DEMO_CREDENTIALS,
  mapIdle,
  type ViewerWindow,
} from '../harness/viewer-page';
import { launchChromium, type Chromium } from '../harness/browser';
import { publishRadarFrames, startViewerApi, type ViewerApi } from '../harness/browser-api';
import { countPalettePixels, decodePng, type PixelBox } from '../harness/palette-pixels';

jest.setTimeout(120_000);

let workDir: string;
let api: ViewerApi;
let empty: ViewerApi;
let browser: Chromium;
const pageErrors: string[] = [];

beforeAll(async () => {
  const built = await buildViewerInTempDir('radar-viewer-mobile-');
  workDir = built.workDir;
  const { assetsDir } = built;
  api = await startViewerApi({ assetsDir, demo: DEMO_CREDENTIALS });
  empty = await startViewerApi({ assetsDir, demo: DEMO_CREDENTIALS });
  await publishRadarFrames(api, 2);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await api?.stop();
  await empty?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

async function open(url: string, width: number, height: number): Promise<Page> {
  const page = await browser.context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.setViewportSize({ width, height });
  await page.goto(url);
  return page;
}

async function boxOf(page: Page, selector: string): Promise<PixelBox> {
  const b = (await page.locator(selector).boundingBox())!;
  return { left: b.x, top: b.y, right: b.x + b.width, bottom: b.y + b.height };
}

const overlaps = (a: PixelBox, b: PixelBox) =>
  a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

describe.each([
  ['phone', 390, 844],
  ['tablet', 768, 1024],
])('%s %ix%i', (_name, width, height) => {
  it('fits CONUS into the visible map area and draws radar there', async () => {
    const page = await open(`${api.baseUrl}/viewer/`, width, height);
    await page.waitForSelector('body[data-radar-state="ready"][data-frame-loaded="true"]', {
      timeout: 30_000,
    });
    await mapIdle(page);
    const panel = await boxOf(page, '#panel');
    const legend = await boxOf(page, '#legend');
    const conus = await page.evaluate(() => {
      const map = (window as unknown as ViewerWindow).radarViewer.map;
      const nw = map.project([-125, 50]);
      const se = map.project([-66, 24]);
      return { left: nw.x, top: nw.y, right: se.x, bottom: se.y };
    });
    console.info(
      `[viewer-mobile] ${width}x${height}: CONUS ${JSON.stringify(conus)}, panel ${JSON.stringify(panel)}, legend ${JSON.stringify(legend)}`,
    );
    // CONUS lies inside the window, clear of the panel and the legend, and is not tiny.
    expect(conus.left).toBeGreaterThanOrEqual(0);
    expect(conus.top).toBeGreaterThanOrEqual(0);
    expect(conus.right).toBeLessThanOrEqual(width);
    expect(conus.bottom).toBeLessThanOrEqual(height);
    expect(overlaps(conus, panel)).toBe(false);
    expect(overlaps(conus, legend)).toBe(false);
    expect(conus.right - conus.left).toBeGreaterThan(width * 0.8);

    // Radar pixels of the map alone (overlays hidden): many, and almost none where the panel
    // or the legend would cover them.
    const hide = await page.addStyleTag({
      content: 'aside, .maplibregl-control-container { display: none !important; }',
    });
    const png = decodePng(await page.locator('#map').screenshot());
    await hide.evaluate((style) => (style as Element).remove());
    const pixels = countPalettePixels(png, [panel, legend]);
    console.info(`[viewer-mobile] ${width}x${height}: ${JSON.stringify(pixels)}`);
    expect(pixels.total).toBeGreaterThan(1_000);
    expect(pixels.colours).toBeGreaterThanOrEqual(4);
    expect(pixels.inBoxes).toBeLessThan(pixels.total / 100);
    await page.close();
  });
});

it('the phone panel folds and unfolds, and CONUS is refitted each time', async () => {
  const page = await open(`${api.baseUrl}/viewer/`, 390, 844);
  await page.waitForSelector('body[data-radar-state="ready"]', { timeout: 30_000 });
  await mapIdle(page);
  const toggle = page.locator('#panel-toggle');
  expect(await toggle.isVisible()).toBe(true);
  expect(await toggle.getAttribute('aria-expanded')).toBe('false'); // phones open folded
  expect(await page.locator('#slider').isVisible()).toBe(false);
  const topOfConus = () =>
    page.evaluate(() => (window as unknown as ViewerWindow).radarViewer.map.project([-125, 50]).y);
  const folded = await topOfConus();
  await toggle.click();
  await mapIdle(page);
  expect(await page.locator('#slider').isVisible()).toBe(true);
  const unfolded = await topOfConus();
  const panel = await boxOf(page, '#panel');
  expect(unfolded).toBeGreaterThanOrEqual(panel.bottom);
  expect(unfolded).toBeGreaterThan(folded);
  await page.close();
});

it('Play and the frame buttons stay disabled while there are no frames', async () => {
  const page = await open(`${empty.baseUrl}/viewer/`, 1280, 800);
  await page.waitForSelector('#message:not([hidden])', { timeout: 30_000 });
  for (const id of ['#play', '#prev', '#next', '#latest'])
    expect(await page.locator(id).isDisabled()).toBe(true);
  await page.close();
  // On the desktop layout the fold button is hidden: the panel covers little of the map.
  const wide = await open(`${api.baseUrl}/viewer/`, 1280, 800);
  await wide.waitForSelector('body[data-radar-state="ready"]', { timeout: 30_000 });
  expect(await wide.locator('#panel-toggle').isVisible()).toBe(false);
  expect(await wide.locator('#play').isDisabled()).toBe(false);
  await wide.close();
  expect(pageErrors).toEqual([]);
});
