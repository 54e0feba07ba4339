/**
 * Shared start of the Leaflet and OpenLayers example pages: credentials (the embedded demo
 * ones from `config.json`, else `?key=&app=` in the page URL), the client, and the newest
 * timestamp from `/status.json`. Progress is mirrored on `body[data-*]` for the browser tests.
 */
import { createRadarClient, type RadarClient } from '../../src/client';

interface ExampleConfig {
  readonly apiBaseUrl: string | null;
  readonly demo: { apiKey: string; appId: string } | null;
}

export interface ExampleSession {
  readonly client: RadarClient;
  readonly timestamp: string;
}

export async function startExample(): Promise<ExampleSession> {
  const config = (await (
    await fetch(new URL('config.json', location.href))
  ).json()) as ExampleConfig;
  const params = new URLSearchParams(location.search);
  const apiKey = params.get('key') ?? config.demo?.apiKey;
  const appId = params.get('app') ?? config.demo?.appId;
  if (!apiKey || !appId) throw new Error('add ?key=<API key>&app=<app id> to the page URL');
  const client = createRadarClient({
    baseUrl: config.apiBaseUrl ?? location.origin,
    credentials: { apiKey, appId },
  });
  const status = await client.status();
  document.body.dataset.timestamp = status.latest;
  return { client, timestamp: status.latest };
}

/** Counts loaded tiles on `body[data-tiles-loaded]`. */
export function tileLoaded(): void {
  const body = document.body;
  body.dataset.tilesLoaded = String(Number(body.dataset.tilesLoaded ?? '0') + 1);
}

export function showError(error: unknown): void {
  document.body.dataset.error = error instanceof Error ? error.message : String(error);
  const box = document.getElementById('error');
  if (box) box.textContent = document.body.dataset.error;
}
