/**
 * Every control of the viewer can be tapped on a phone (390x844), a tablet (768x1024) and a
 * desktop window (1280x800): the element at the centre of each control's box is the control
 * (or a part of it), so no panel, legend or other control lies over it; with the phone's panel
 * folded and unfolded. The colour-scheme picker in the legend is one of them. The legend and
 * the attribution do not overlap.
 */
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { buildViewerInTempDir, DEMO_CREDENTIALS } from '../harness/viewer-page';
import { launchChromium, type Chromium } from '../harness/browser';
import { publishRadarFrames, startViewerApi, type ViewerApi } from '../harness/browser-api';

jest.setTimeout(120_000);

let workDir: string;
let api: ViewerApi;
let browser: Chromium;
const pageErrors: string[] = [];

beforeAll(async () => {
  const built = await buildViewerInTempDir('radar-viewer-controls-');
  workDir = built.workDir;
  const { assetsDir } = built;
  api = await startViewerApi({ assetsDir, demo: DEMO_CREDENTIALS });
  await publishRadarFrames(api, 2, 4);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await api?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

/** The controls, by selector; each must match at least one visible element on every screen. */
const CONTROLS = {
  always: [
    '.maplibregl-ctrl-zoom-in',
    '.maplibregl-ctrl-zoom-out',
    '#prev',
    '#play',
    '#next',
    '#latest',
    '#scheme',
    '#type-colours',
    '.maplibregl-ctrl-attrib a',
  ],
  /** In the part of the panel a phone folds away. */
  unfolded: ['#slider', '#credentials > summary'],
};

interface HitTest {
  selector: string;
  index: number;
  /** The element found at the centre, described, when it is not the control. */
  blockedBy?: string;
  visible: boolean;
}

/** Hit-tests every element matching each selector (the visible ones), in the page. */
function hitTest(page: Page, selectors: string[]): Promise<HitTest[]> {
  return page.evaluate((list) => {
    const describe = (el: Element | null) =>
      el ? `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${el.className}` : 'nothing';
    return list.flatMap((selector) =>
      Array.from(document.querySelectorAll(selector)).map((el, index) => {
        const box = el.getBoundingClientRect();
        const visible = box.width > 0 && box.height > 0;
        const x = box.left + box.width / 2;
        const y = box.top + box.height / 2;
        const hit = document.elementFromPoint(x, y);
        const ok = hit !== null && (hit === el || el.contains(hit));
        return { selector, index, visible, ...(ok ? {} : { blockedBy: describe(hit) }) };
      }),
    );
  }, selectors);
}

async function box(page: Page, selector: string) {
  const b = (await page.locator(selector).boundingBox())!;
  return { left: b.x, top: b.y, right: b.x + b.width, bottom: b.y + b.height };
}

/** Every selector found visible at least once, and nothing lying over any visible control. */
function expectAllHittable(results: HitTest[], selectors: string[]): void {
  const missing = selectors.filter(
    (selector) => !results.some((r) => r.selector === selector && r.visible),
  );
  const blocked = results.filter((r) => r.visible && r.blockedBy !== undefined);
  expect({ missing, blocked }).toEqual({ missing: [], blocked: [] });
}

it.each([
  [390, 844],
  [768, 1024],
  [1280, 800],
])(
  'at %ix%i every control is hit-testable and the legend clears the attribution',
  async (width, height) => {
    const page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.setViewportSize({ width, height });
    await page.goto(`${api.baseUrl}/viewer/`);
    await page.waitForSelector('body[data-radar-state="ready"][data-frame-loaded="true"]', {
      timeout: 30_000,
    });
    // The scheme picker is filled from /legend.json once the session has read it.
    await page.waitForSelector('#legend[data-scheme] #scheme:enabled', { timeout: 30_000 });

    const toggle = page.locator('#panel-toggle');
    if (await toggle.isVisible()) {
      // The phone layout opens folded: the toggle and the play controls must be reachable so.
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      expectAllHittable(await hitTest(page, [...CONTROLS.always, '#panel-toggle']), [
        ...CONTROLS.always,
        '#panel-toggle',
      ]);
      await toggle.click();
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    }
    const all = [...CONTROLS.always, ...CONTROLS.unfolded];
    const results = await hitTest(page, all);
    console.info(
      `[viewer-controls] ${width}x${height}: ${results.filter((r) => r.visible).length} controls hit-tested`,
    );
    expectAllHittable(results, all);

    const legend = await box(page, '#legend');
    const attribution = await box(page, '.maplibregl-ctrl-attrib');
    const overlap =
      legend.left < attribution.right &&
      attribution.left < legend.right &&
      legend.top < attribution.bottom &&
      attribution.top < legend.bottom;
    expect({ legend, attribution, overlap }).toEqual({ legend, attribution, overlap: false });
    expect(legend.bottom).toBeLessThanOrEqual(height);
    expect(attribution.bottom).toBeLessThanOrEqual(height);

    // The scheme menu shows whole scheme names: as wide as it is with no width limit, and
    // inside the legend.
    const menu = await page.$eval('#scheme', (element) => {
      const select = element as HTMLSelectElement;
      const shown = select.offsetWidth;
      select.style.maxWidth = 'none';
      const natural = select.offsetWidth;
      select.style.maxWidth = '';
      return { shown, natural };
    });
    expect(menu.shown).toBe(menu.natural);
    const picker = await box(page, '#scheme');
    expect(picker.right).toBeLessThanOrEqual(legend.right);
    expect(picker.left).toBeGreaterThanOrEqual(legend.left);
    await page.close();
    expect(pageErrors).toEqual([]);
  },
);
