/**
 * JSON files served beside the pages (the viewer's `config.json`, the packaged base map
 * `basemap.json`), read by the viewer and the example pages alike.
 */
import type { Basemap } from '../src/viewer/basemap';

/** `name` read from beside the page; throws `name: HTTP <status>` when it is not served. */
export async function fetchPageJson<T>(name: string): Promise<T> {
  const response = await fetch(new URL(name, location.href));
  if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
  return (await response.json()) as T;
}

/** The base map the viewer ships, read from beside the page. */
export function fetchBasemap(): Promise<Basemap> {
  return fetchPageJson<Basemap>('basemap.json');
}
