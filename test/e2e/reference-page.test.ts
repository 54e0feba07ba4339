/**
 * The HTML reference in Debian's Chromium: served by the embedded service from a fresh build of
 * the description, it renders every operation of `openapi/openapi.yaml` and never asks another
 * origin for anything (no fonts, no CDN, no logo, no telemetry): every request the page makes
 * is recorded, and none leaves the service's origin. A script the policy refuses would show as
 * a console error, so the console is checked too. Chromium missing is a failure, not a skip.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildOpenApi } from '../../tools/build-openapi';
import { launchChromium, type Chromium } from '../harness/browser';
import { startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { loadOpenApiContract } from '../harness/openapi-contract';

jest.setTimeout(90_000);

let workDir: string;
let api: EmbeddedApi;
let browser: Chromium;

beforeAll(async () => {
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-reference-e2e-'));
  const assetsDir = await buildOpenApi({ outDir: path.join(workDir, 'public') });
  api = await startEmbeddedApi({ openApiAssetsDir: assetsDir });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await api?.stop();
  if (workDir) await fs.rm(workDir, { recursive: true, force: true });
});

it('renders every operation and makes no request to another origin', async () => {
  const page = await browser.context.newPage();
  const requested: string[] = [];
  const failed: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (req) => requested.push(req.url()));
  page.on('requestfailed', (req) => failed.push(`${req.url()} ${req.failure()?.errorText}`));
  const refused: string[] = [];
  page.on('response', (res) => {
    // Nothing is refused, the browser's own favicon probe included (the page has its icon).
    if (res.status() >= 400) refused.push(`${res.status()} ${res.url()}`);
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource'))
      consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => consoleErrors.push(err.message));
  await page.goto(`${api.baseUrl}/reference/`, { waitUntil: 'networkidle' });

  // Each tag's page lists its operations by path; each GET operation's page its responses.
  const doc = loadOpenApiContract().document as {
    paths: Record<string, { get: { tags: string[]; summary: string; responses: object } }>;
  };
  const menu = page.locator('[data-component-name="Menu/Menu"]');
  const operations = Object.entries(doc.paths).map(([route, item]) => ({ route, ...item.get }));
  expect(operations.length).toBeGreaterThanOrEqual(5);
  for (const tag of new Set(operations.map((op) => op.tags[0]!))) {
    await menu.getByText(tag, { exact: true }).click();
    // The page renders a tag's operations as they come into view: each is opened from the menu.
    for (const op of operations.filter((o) => o.tags[0] === tag)) {
      await menu.getByText(op.summary, { exact: true }).first().click();
      await page.getByText(op.route, { exact: true }).first().waitFor();
    }
    await menu.getByText(tag, { exact: true }).click();
    await menu
      .getByText(operations.find((o) => o.tags[0] === tag)!.summary, { exact: true })
      .click();
    const first = operations.find((o) => o.tags[0] === tag)!;
    await page.getByRole('heading', { name: first.summary }).first().waitFor();
    const text = await page.evaluate(() => document.body.innerText);
    const responses = text.slice(text.indexOf('Responses'));
    for (const status of Object.keys(first.responses))
      expect({ op: first.summary, listed: responses.includes(status) }).toEqual({
        op: first.summary,
        listed: true,
      });
  }

  const origin = new URL(api.baseUrl).origin;
  const elsewhere = requested.filter(
    (url) => !url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).origin !== origin,
  );
  expect({ elsewhere, failed, refused, consoleErrors }).toEqual({
    elsewhere: [],
    failed: [],
    refused: [],
    consoleErrors: [],
  });
  expect(requested.length).toBeGreaterThan(0);
  // Its own icon, inline, so the browser never asks the origin for /favicon.ico.
  const icons = await page.$$eval('link[rel="icon"]', (links) =>
    links.map((link) => link.getAttribute('href') ?? ''),
  );
  expect(icons).toHaveLength(1);
  expect(icons[0]).toMatch(/^data:image\/svg\+xml,/);
  expect(requested.filter((url) => url.endsWith('/favicon.ico'))).toEqual([]);
  await page.close();
});
