/**
 * Debian's Chromium, headless, driven by playwright-core (no browser download). CI installs
 * the `chromium` package; when it is missing this throws, so the browser test fails rather
 * than silently skipping. WebGL runs on SwiftShader (software), which needs no GPU.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags: headless, no sandbox (CI runs as root), no network side traffic, software WebGL. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
];

export interface Chromium {
  readonly context: BrowserContext;
  readonly userDataDir: string;
  close(): Promise<void>;
}

/** Options of {@link launchChromium}. */
export interface LaunchOptions {
  readonly viewport?: { width: number; height: number };
  /** IANA zone the page sees (default the machine's). */
  readonly timezoneId?: string;
}

/** Launches Chromium with a fresh user-data-dir (default viewport 1280 x 800). */
export async function launchChromium(options: LaunchOptions = {}): Promise<Chromium> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install chromium)`,
    );
  }
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'radar-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: options.viewport ?? { width: 1280, height: 800 },
    timezoneId: options.timezoneId,
    timeout: 30_000,
  });
  return {
    context,
    userDataDir,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
