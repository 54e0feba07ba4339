/**
 * The forecast catalog: which forecast frames are readable and which base is listed. It is a
 * port of its own beside the observed catalog, because its rule is not the sorted set's: a
 * base is listed only once every lead of its cycle is ingested, the newest such base is the
 * one listed, and an older base stays readable (unlisted) for a grace period, then leaves.
 *
 * The ingest leader alone decides it and writes it as one manifest (every readable base with
 * its frames' metadata); replicas read the manifest whole. A manifest is small (a few bases of
 * a few leads each), so writing it whole keeps the rule in one place and every replica's view
 * identical. `ForecastView` is the replica's immutable, O(1) view of one manifest.
 */
import { forecastValidTimestamp, parseForecastKey } from './forecast-frames';
import type { ArchiveMeta } from './ports';

/** One readable base: the leads of its cycle, its frames, and when a newer base replaced it. */
export interface ForecastBase {
  /** The observed timestamp the frames extrapolate (12 digits). */
  readonly base: string;
  /** Every lead of this base's cycle (its metadata's `forecast.leads`), ascending. */
  readonly leads: readonly number[];
  /** One entry per lead, in lead order; `timestamp` is the frame's archive key. */
  readonly frames: readonly ArchiveMeta[];
  /** Epoch ms when a newer base was listed; absent for the listed base. */
  readonly supersededAtMs?: number;
}

/** What the ingest leader decided: every readable base, newest first (the first may be listed). */
export interface ForecastManifest {
  readonly bases: readonly ForecastBase[];
}

/** One listed forecast frame as `/status.json` shows it. */
export interface ForecastListing {
  readonly base: string;
  readonly lead: number;
  /** base + lead, 12 digits. */
  readonly valid: string;
}

/** A replica's immutable view of one manifest. */
export interface ForecastView {
  /** Per-process version; changes whenever the content changes. */
  readonly version: number;
  /** The listed base's frames in lead order; empty when no base is listed. */
  readonly listed: readonly ForecastListing[];
  /** The listed base (12 digits), or undefined. */
  readonly listedBase: string | undefined;
  /** The metadata of a readable frame (listed or within its grace), by archive key. */
  get(key: string): ArchiveMeta | undefined;
  /** The manifest this view was built from. */
  readonly manifest: ForecastManifest;
}

/** Read side for replicas: the current view, kept current by the adapter. */
export interface ForecastCatalogReader {
  current(): ForecastView;
  /**
   * Where the view can lag the shared manifest (a replica's copy of Redis): re-reads the
   * manifest (one read at a time, at most one per short interval) and resolves the frame's
   * metadata or `undefined`. Never rejects (a failed read is `undefined`). Absent where the
   * view is the manifest.
   */
  find?(key: string): Promise<ArchiveMeta | undefined>;
}

/** Write side for the ingest leader: the manifest as stored, and its replacement. */
export interface ForecastCatalogWriter {
  /** The stored manifest (empty when none or unreadable: the leader then rebuilds it). */
  read(): Promise<ForecastManifest>;
  /** Replaces the manifest and announces it to every replica. */
  write(manifest: ForecastManifest): Promise<void>;
}

export const EMPTY_MANIFEST: ForecastManifest = Object.freeze({ bases: Object.freeze([]) });

/** The listed base of a manifest: its newest base that no newer base superseded. */
export function listedBaseOf(manifest: ForecastManifest): ForecastBase | undefined {
  const first = manifest.bases[0];
  return first !== undefined && first.supersededAtMs === undefined ? first : undefined;
}

/** Builds the view of `manifest`. */
export function createForecastView(version: number, manifest: ForecastManifest): ForecastView {
  const byKey = new Map<string, ArchiveMeta>();
  for (const base of manifest.bases)
    for (const meta of base.frames) byKey.set(meta.timestamp, meta);
  const listedBase = listedBaseOf(manifest);
  const listed: ForecastListing[] = [];
  for (const meta of listedBase?.frames ?? []) {
    const id = parseForecastKey(meta.timestamp);
    if (id !== undefined) listed.push({ ...id, valid: forecastValidTimestamp(id) });
  }
  return Object.freeze({
    version,
    listed: Object.freeze(listed),
    listedBase: listedBase?.base,
    get: (key: string) => byKey.get(key),
    manifest,
  });
}

export const EMPTY_FORECAST_VIEW: ForecastView = createForecastView(0, EMPTY_MANIFEST);
