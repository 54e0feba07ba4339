/**
 * The forecast manifest as JSON: what the ingest leader stores and replicas read back. Decoding
 * applies the same acceptance as the observed catalog (`archive-meta.ts`) to every frame, and
 * refuses the whole manifest when any part is malformed: a replica keeps its last good view
 * rather than serve from junk written by hand.
 */
import { objectProblem } from './archive-meta';
import type { ForecastBase, ForecastManifest } from './forecast-catalog';
import { parseForecastKey } from './forecast-frames';
import type { ArchiveMeta } from './ports';
import { parseTimestamp } from './timestamps';

/** Bases a manifest may hold (the listed one and those within their grace: a handful). */
export const MAX_MANIFEST_BASES = 64;
/** Leads one base may have. */
export const MAX_BASE_LEADS = 64;

/** The manifest as plain JSON (dates as epoch ms), the form every store keeps. */
export function encodeManifest(manifest: ForecastManifest): unknown {
  return {
    bases: manifest.bases.map((b) => ({
      base: b.base,
      leads: b.leads,
      ...(b.supersededAtMs === undefined ? {} : { supersededAtMs: b.supersededAtMs }),
      frames: b.frames.map((f) => ({
        key: f.timestamp,
        size: f.size,
        etag: f.etag,
        lastModified: f.lastModified.getTime(),
      })),
    })),
  };
}

/** Whether two manifests say the same (the leader writes only a change). */
export function sameManifest(a: ForecastManifest, b: ForecastManifest): boolean {
  return JSON.stringify(encodeManifest(a)) === JSON.stringify(encodeManifest(b));
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function decodeFrame(value: unknown, base: string): ArchiveMeta | undefined {
  if (!isRecord(value) || typeof value.key !== 'string') return undefined;
  const id = parseForecastKey(value.key);
  if (id === undefined || id.base !== base) return undefined;
  const meta: ArchiveMeta = {
    timestamp: value.key,
    size: value.size as number,
    etag: value.etag as string,
    lastModified: new Date(typeof value.lastModified === 'number' ? value.lastModified : NaN),
  };
  return objectProblem(meta) === undefined ? meta : undefined;
}

function decodeBase(value: unknown): ForecastBase | undefined {
  if (!isRecord(value) || typeof value.base !== 'string') return undefined;
  const base = value.base;
  if (parseTimestamp(base) === undefined) return undefined;
  const { leads, frames, supersededAtMs } = value;
  if (!Array.isArray(leads) || leads.length === 0 || leads.length > MAX_BASE_LEADS)
    return undefined;
  if (!leads.every((l) => Number.isSafeInteger(l))) return undefined;
  if (!Array.isArray(frames) || frames.length > MAX_BASE_LEADS) return undefined;
  const decoded = frames.map((f) => decodeFrame(f, base));
  if (decoded.some((f) => f === undefined)) return undefined;
  if (supersededAtMs !== undefined && !Number.isSafeInteger(supersededAtMs)) return undefined;
  return {
    base,
    leads: leads as number[],
    frames: decoded as ArchiveMeta[],
    ...(supersededAtMs === undefined ? {} : { supersededAtMs: supersededAtMs as number }),
  };
}

/** The manifest `text` encodes, or undefined when any part of it is malformed. */
export function decodeManifest(text: string): ForecastManifest | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || !Array.isArray(value.bases)) return undefined;
  if (value.bases.length > MAX_MANIFEST_BASES) return undefined;
  const bases = value.bases.map(decodeBase);
  if (bases.some((b) => b === undefined)) return undefined;
  return { bases: bases as ForecastBase[] };
}
