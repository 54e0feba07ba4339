/**
 * The viewer with forecast frames, in Debian's Chromium against the embedded service serving a
 * moving echo: four observed frames and the six forecast frames of the newest one, the echo
 * where its known motion puts it in each. The timeline lists the forecasts after the observed
 * frames, in their own segment, on a phone, a tablet and a desktop; a forecast frame is marked
 * with its lead and never as observed; the map on a forecast frame shows that forecast's echo
 * (screenshot kept as a test artefact); and the interpolated picture halfway between two frames
 * shows the echo halfway along its motion, whole, not two faded copies.
 *
 * The screenshot goes to a temp dir; set RADAR_VIEWER_FORECAST_SCREENSHOT=docs/viewer-forecast.png
 * to refresh the docs' copy.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { forecastValidTimestamp } from '../../src/domain/forecast-frames';
import { formatUtc } from '../../web/time-format';
import { launchChromium, type Chromium } from '../harness/browser';
import { startViewerApi, type ViewerApi } from '../harness/browser-api';
import { LEADS, publishMovingEcho, type MovingEcho } from '../harness/moving-echo';
import { countPalettePixels, decodePng } from '../harness/palette-pixels';
import {
  buildViewerInTempDir,
  DEMO_CREDENTIALS,
  mapIdle,
  type ViewerWindow,
} from '../harness/viewer-page';

jest.setTimeout(120_000);

const OBSERVED = 4;
let workDir: string;
let api: ViewerApi;
let browser: Chromium;
let echo: MovingEcho;
const pageErrors: string[] = [];

beforeAll(async () => {
  const built = await buildViewerInTempDir('radar-viewer-forecast-');
  workDir = built.workDir;
  api = await startViewerApi({ assetsDir: built.assetsDir, demo: DEMO_CREDENTIALS });
  echo = await publishMovingEcho(api, OBSERVED);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await api?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

/** The page's session, through the debug handle (web/main.ts), untyped in the page. */
interface SessionHandle {
  player: {
    state(): { frames: Array<{ kind: string; key: string; valid: string }>; index: number };
    seek(index: number): void;
    play(): void;
    pause(): void;
  };
  interpolation: {
    hold(from: unknown, to: unknown, t: number): Promise<boolean>;
    release(shown: unknown): void;
    hasMotion(): boolean;
    stats(): {
      transitions: number;
      pictures: number;
      meanPictureMs: number;
      maxPictureMs: number;
      meanIntervalMs: number;
      meanPrepareMs: number;
      maxPrepareMs: number;
      framesDrawn: number;
    };
  };
  motionBase(): string | undefined;
}
type SessionWindow = { radarViewer: { session(): SessionHandle } };

/** Times the page records while playing (performance.now() of each event). */
interface Timings {
  frameChanges: number[];
  mapRenders: number[];
}

/** The median time between consecutive events. */
function medianInterval(times: readonly number[]): number {
  const gaps = times
    .slice(1)
    .map((at, i) => at - times[i]!)
    .sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)]!;
}

async function open(width: number, height: number): Promise<Page> {
  const page = await browser.context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.setViewportSize({ width, height });
  await page.goto(`${api.baseUrl}/viewer/`);
  await page.waitForSelector('body[data-radar-state="ready"][data-frame-loaded="true"]', {
    timeout: 30_000,
  });
  return page;
}

/** Shows timeline frame `index` and waits until its tiles are drawn. */
async function showFrame(page: Page, index: number): Promise<void> {
  await page.evaluate(
    (i) => (window as unknown as SessionWindow).radarViewer.session().player.seek(i),
    index,
  );
  await page.waitForSelector('body[data-frame-loaded="true"]', { timeout: 30_000 });
  await mapIdle(page);
}

/** The echo on the map alone (overlays hidden): palette pixels, their west/mean/east longitude. */
async function mapEcho(page: Page) {
  const hide = await page.addStyleTag({
    content: 'aside, .maplibregl-control-container { display: none !important; }',
  });
  const png = decodePng(await page.locator('#map').screenshot());
  await hide.evaluate((style) => (style as Element).remove());
  const xs: number[] = [];
  let y0 = 0;
  const pixels = countPalettePixels(png, [], undefined, (x, y) => {
    xs.push(x);
    y0 = y;
    return true;
  });
  expect(xs.length).toBeGreaterThan(0);
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const lonOf = (x: number) =>
    page.evaluate(
      ([px, py]) => (window as unknown as ViewerWindow).radarViewer.map.unproject([px!, py!]).lng,
      [x, y0],
    );
  return {
    count: pixels.total,
    west: await lonOf(Math.min(...xs)),
    mean: await lonOf(mean),
    east: await lonOf(Math.max(...xs)),
  };
}

const frameKinds = (page: Page) =>
  page.evaluate(() =>
    (window as unknown as SessionWindow).radarViewer
      .session()
      .player.state()
      .frames.map((f) => f.kind),
  );

async function boxOf(page: Page, selector: string) {
  const b = (await page.locator(selector).boundingBox())!;
  return { left: b.x, top: b.y, right: b.x + b.width, bottom: b.y + b.height };
}

/** Whether the element at the centre of `selector`'s box is it (nothing lies over it). */
const hittable = (page: Page, selector: string) =>
  page.$eval(selector, (el) => {
    const b = el.getBoundingClientRect();
    const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
    return hit !== null && (hit === el || el.contains(hit));
  });

it.each([
  [390, 844],
  [768, 1024],
  [1280, 800],
])(
  'at %ix%i the timeline shows the forecast frames after the observed ones, marked',
  async (width, height) => {
    const page = await open(width, height);
    expect(await frameKinds(page)).toEqual([
      ...Array<string>(OBSERVED).fill('observed'),
      ...Array<string>(LEADS.length).fill('forecast'),
    ]);
    // Opens on the latest observed frame, marked as observed.
    expect(await page.getAttribute('#time-utc', 'data-timestamp')).toBe(echo.base);
    expect(await page.getAttribute('body', 'data-frame-kind')).toBe('observed');
    expect(await page.textContent('#frame-kind')).toBe('Observed');
    // The forecast segment: after the observed one, visible in the window, nothing over it.
    expect(await page.getAttribute('#timeline', 'data-forecasts')).toBe(String(LEADS.length));
    const observedBar = await boxOf(page, '#timeline-observed');
    const forecastBar = await boxOf(page, '#timeline-forecast');
    expect(forecastBar.left).toBeGreaterThanOrEqual(observedBar.right - 0.5);
    expect(forecastBar.right - forecastBar.left).toBeGreaterThan(10);
    expect(forecastBar.right).toBeLessThanOrEqual(width);
    expect(await hittable(page, '#timeline-forecast')).toBe(true);
    const segmentColours = await page.evaluate(() =>
      ['timeline-observed', 'timeline-forecast'].map(
        (id) =>
          getComputedStyle(document.getElementById(id)!).backgroundImage +
          getComputedStyle(document.getElementById(id)!).backgroundColor,
      ),
    );
    expect(segmentColours[0]).not.toBe(segmentColours[1]);

    // The next frame is the first forecast: its lead, its valid time, what it was made from.
    await page.click('#next');
    await page.waitForSelector('body[data-frame-kind="forecast"]');
    expect(await page.textContent('#frame-kind')).toBe('Forecast +10 min');
    const valid = forecastValidTimestamp({ base: echo.base, lead: 10 });
    expect(await page.getAttribute('#time-utc', 'data-timestamp')).toBe(valid);
    expect(await page.textContent('#time-utc')).toBe(formatUtc(valid));
    expect(await page.textContent('#frame-origin')).toContain(
      `extrapolated from the ${formatUtc(echo.base)} radar`,
    );
    for (const selector of ['#frame-kind', '#frame-origin', '#timeline-cursor']) {
      expect(await page.locator(selector).isVisible()).toBe(true);
      const box = await boxOf(page, selector);
      expect(box.right).toBeLessThanOrEqual(width);
      expect(box.bottom).toBeLessThanOrEqual(height);
    }
    expect(await hittable(page, '#frame-kind')).toBe(true);
    const cursor = await boxOf(page, '#timeline-cursor');
    expect((cursor.left + cursor.right) / 2).toBeGreaterThan(forecastBar.left);
    // "Latest" is the present: the latest observed frame, never a forecast.
    await page.click('#latest');
    await page.waitForSelector('body[data-frame-kind="observed"]');
    expect(await page.textContent('#frame-kind')).toBe('Observed');
    await page.close();
    expect(pageErrors).toEqual([]);
  },
);

it('on a forecast frame the map shows the forecast echo, marked with its lead (screenshot)', async () => {
  const page = await open(1280, 800);
  const lead = 30;
  await showFrame(page, OBSERVED - 1 + LEADS.indexOf(lead) + 1);
  const valid = forecastValidTimestamp({ base: echo.base, lead });
  expect(await page.getAttribute('#time-utc', 'data-timestamp')).toBe(valid);
  expect(await page.locator('#frame-kind').isVisible()).toBe(true);
  expect(await page.textContent('#frame-kind')).toBe(`Forecast +${lead} min`);
  expect(await page.$eval('#frame-kind', (el) => getComputedStyle(el).backgroundColor)).toBe(
    'rgb(240, 160, 32)',
  );

  const shot = path.join(workDir, 'viewer-forecast.png');
  await page.screenshot({ path: shot });
  if (process.env.RADAR_VIEWER_FORECAST_SCREENSHOT)
    fs.copyFileSync(shot, process.env.RADAR_VIEWER_FORECAST_SCREENSHOT);
  expect(fs.statSync(shot).size).toBeGreaterThan(10_000);

  const seen = await mapEcho(page);
  console.info(
    `[viewer-forecast] +${lead} min: echo ${JSON.stringify(seen)}, expected centre ${echo.echoLon(valid)}`,
  );
  expect(seen.count).toBeGreaterThan(200);
  // The forecast's echo, where the motion puts it 30 minutes on: 9 degrees east of the base's.
  expect(Math.abs(seen.mean - echo.echoLon(valid))).toBeLessThan(0.5);
  expect(seen.mean - echo.echoLon(echo.base)).toBeGreaterThan(8);
  await page.close();
  expect(pageErrors).toEqual([]);
});

it('interpolates along the motion: halfway between two frames the echo lies halfway, whole', async () => {
  const page = await open(1280, 800);
  await page.waitForFunction(
    (base) => (window as unknown as SessionWindow).radarViewer.session().motionBase() === base,
    echo.base,
    { timeout: 30_000 },
  );
  const from = OBSERVED; // +10
  const to = OBSERVED + 1; // +20
  await showFrame(page, to);
  const later = await mapEcho(page);
  await showFrame(page, from);
  const earlier = await mapEcho(page);
  const shift = later.mean - earlier.mean;
  expect(shift).toBeGreaterThan(2); // 0.3 degrees per minute for 10 minutes

  const held = await page.evaluate(
    ([a, b]) => {
      const session = (window as unknown as SessionWindow).radarViewer.session();
      const frames = session.player.state().frames;
      return session.interpolation.hold(frames[a!], frames[b!], 0.5);
    },
    [from, to],
  );
  expect(held).toBe(true);
  // The canvas source is re-read on every rendered frame: two animation frames show it.
  await page.evaluate(
    () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null)))),
  );
  const halfway = await mapEcho(page);
  console.info(`[viewer-forecast] interpolation: ${JSON.stringify({ earlier, halfway, later })}`);
  // Halfway along the motion ...
  expect(Math.abs(halfway.mean - (earlier.mean + later.mean) / 2)).toBeLessThan(shift / 4);
  // ... and one whole echo, not a faded copy at each end: as many opaque palette pixels as a
  // frame has, its west edge east of the earlier echo's and its east edge west of the later's.
  expect(halfway.count).toBeGreaterThan(earlier.count * 0.7);
  expect(halfway.west).toBeGreaterThan(earlier.west + shift / 4);
  expect(halfway.east).toBeLessThan(later.east - shift / 4);
  await page.evaluate((a) => {
    const session = (window as unknown as SessionWindow).radarViewer.session();
    session.interpolation.release(session.player.state().frames[a!]);
  }, from);
  await mapIdle(page);
  expect(Math.abs((await mapEcho(page)).mean - earlier.mean)).toBeLessThan(0.3);

  // Playing runs the interpolation between frames; its cost per picture is reported, and the
  // player's time per frame (nominally 500 ms): when the frame changes, as the page marks it.
  await showFrame(page, 0);
  // And how often the map renders meanwhile (each render shows at most one new picture).
  await page.evaluate(() => {
    const w = window as unknown as Timings & {
      radarViewer: { map: { on(type: 'render', listener: () => void): unknown } };
    };
    w.frameChanges = [];
    w.mapRenders = [];
    new MutationObserver(() => w.frameChanges.push(performance.now())).observe(
      document.getElementById('time-utc')!,
      { attributes: true, attributeFilter: ['data-key'] },
    );
    w.radarViewer.map.on('render', () => w.mapRenders.push(performance.now()));
  });
  const before = await page.evaluate(() =>
    (window as unknown as SessionWindow).radarViewer.session().interpolation.stats(),
  );
  await page.click('#play');
  await page.waitForFunction(
    () =>
      (window as unknown as SessionWindow).radarViewer.session().interpolation.stats()
        .transitions >= 4,
    undefined,
    { timeout: 60_000 },
  );
  await page.click('#play');
  const stats = await page.evaluate(() =>
    (window as unknown as SessionWindow).radarViewer.session().interpolation.stats(),
  );
  const timings = await page.evaluate(() => {
    const { frameChanges, mapRenders } = window as unknown as Timings;
    return { frameChanges, mapRenders };
  });
  const figure = {
    ...stats,
    picturesPerTransition: stats.pictures / stats.transitions,
    medianFramePeriodMs: medianInterval(timings.frameChanges),
    medianMapRenderMs: medianInterval(timings.mapRenders),
    playMs: timings.mapRenders.at(-1)! - timings.mapRenders[0]!,
  };
  console.info(`[figure] viewer interpolation (1280x800, SwiftShader): ${JSON.stringify(figure)}`);
  expect(stats.pictures).toBeGreaterThanOrEqual(stats.transitions);
  // Each frame's picture is drawn once while playing (a transition's B is the next one's A,
  // drawn ahead): the first A, one B per transition, and the next one drawn ahead.
  const transitions = stats.transitions - before.transitions;
  expect(stats.framesDrawn - before.framesDrawn).toBeLessThanOrEqual(transitions + 2);
  await page.close();
  expect(pageErrors).toEqual([]);
});
