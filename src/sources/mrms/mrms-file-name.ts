/**
 * MRMS file names and NOAA's feed layout. NOAA names every file
 * `MRMS_{Product}_{Level}_{YYYYMMDD-HHMMSS}.grib2.gz` (the time is the product's valid time,
 * UTC), and its open-data bucket keeps them under `{prefix}{YYYYMMDD}/` folders, one per UTC
 * day. The name's time lets the producer skip a file whose frame is already published without
 * downloading it; the archive itself is named from the GRIB2 valid time.
 */
import type { FeedFile } from '../../domain/producer-ports';
import { utcCalendarMs } from '../../domain/timestamps';

/** What an MRMS file name says. */
export interface MrmsFileName {
  /** Product and level together, e.g. `ReflectivityAtLowestAltitude_00.50`. */
  readonly productLevel: string;
  /** The product alone, e.g. `ReflectivityAtLowestAltitude`. */
  readonly product: string;
  /** The level alone, e.g. `00.50` (kilometres above sea level). */
  readonly level: string;
  /** The time in the name, epoch ms UTC. */
  readonly timeMs: number;
}

const NAME =
  /^MRMS_(([A-Za-z0-9_-]+?)_([0-9]{2}\.[0-9]{2}))_([0-9]{4})([0-9]{2})([0-9]{2})-([0-9]{2})([0-9]{2})([0-9]{2})\.grib2(\.gz)?$/;

/** A product-and-level name as MRMS writes it: letters, digits, `_`, `-`, then `_NN.NN`. */
export const PRODUCT_LEVEL = /^[A-Za-z0-9_-]+_[0-9]{2}\.[0-9]{2}$/;

/**
 * Parses a file name (no directory), or `undefined` when it is not an MRMS data file with a
 * real UTC time (the `.latest` copy NOAA keeps beside the files has none).
 */
export function parseMrmsFileName(name: string): MrmsFileName | undefined {
  const m = NAME.exec(name);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(4, 10).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const timeMs = utcCalendarMs(year, month, day, hour, minute, second);
  if (timeMs === undefined) return undefined;
  return { productLevel: m[1]!, product: m[2]!, level: m[3]!, timeMs };
}

/**
 * The feed file at `key` named `name` when it is a gzip-compressed MRMS file of `productLevel`
 * (the files a follower publishes), with the time its name carries; `undefined` for anything
 * else (other products in the same place are ignored, not refused).
 */
export function feedFile(key: string, name: string, productLevel: string): FeedFile | undefined {
  if (!name.endsWith('.gz')) return undefined;
  const parsed = parseMrmsFileName(name);
  return parsed?.productLevel === productLevel ? { key, name, timeMs: parsed.timeMs } : undefined;
}

/** The UTC day folder of an instant in NOAA's bucket layout: `YYYYMMDD`. */
export function dayFolder(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10).replace(/-/g, '');
}

/** The last path segment of a key, URL or path (`a/b/c.gz` -> `c.gz`). */
export function baseName(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}

/** Sorts `files` newest first by the time in their names, then by key; returns the array. */
export function newestFirst(files: FeedFile[]): FeedFile[] {
  return files.sort((a, b) => b.timeMs - a.timeMs || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
}
