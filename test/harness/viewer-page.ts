/**
 * What the viewer's browser tests share: the viewer built into a temp dir of its own, the demo
 * credentials it pre-fills, and waiting on the map through the page's debug handle.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { buildViewer } from '../../tools/build-viewer';
import { APPS, KEYS } from './embedded-api';

/** The part of the page's `window.radarViewer` debug handle (web/main.ts) the tests read. */
export interface ViewerWindow {
  radarViewer: {
    map: {
      loaded(): boolean;
      isMoving(): boolean;
      once(type: 'idle', listener: () => void): unknown;
      project(lngLat: [number, number]): { x: number; y: number };
      unproject(point: [number, number]): { lng: number; lat: number };
    };
  };
}

/** The demo key and app the viewer API hands the page. */
export const DEMO_CREDENTIALS = { apiKey: KEYS.good, appId: APPS.web };

/** Builds the viewer into `public/` of a new temp dir named from `prefix` (the caller removes it). */
export async function buildViewerInTempDir(
  prefix: string,
): Promise<{ workDir: string; assetsDir: string }> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const assetsDir = await buildViewer({ outDir: path.join(workDir, 'public') });
  return { workDir, assetsDir };
}

/** Resolves when MapLibre has drawn everything it has loaded. */
export function mapIdle(page: Page): Promise<void> {
  return page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const map = (window as unknown as ViewerWindow).radarViewer.map;
        if (map.loaded() && !map.isMoving()) resolve();
        else map.once('idle', () => resolve());
      }),
  );
}
