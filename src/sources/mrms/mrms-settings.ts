/**
 * The MRMS follower's settings as data: their limits and defaults, and how an `MRMS_SOURCE`
 * value names a source. Configuration (`src/config.ts`) validates the environment with these,
 * so the follower never meets a value it would refuse.
 */
import path from 'node:path';
import type { MrmsSource } from '../../config-types';
import type { IntegerLimit } from '../../shared/integer-limit';
import { PRODUCT_LEVEL } from './mrms-file-name';
import { PRECIP_FLAG_PRODUCT } from './mrms-precip-flag';

/** NOAA's open-data bucket of MRMS products (anonymous reads, region us-east-1). */
const NOAA_MRMS_BUCKET = 'noaa-mrms-pds';
/** The endpoint of NOAA's bucket (path-style requests). */
export const NOAA_MRMS_ENDPOINT = 'https://s3.amazonaws.com';
/** The product published by default: reflectivity at the lowest altitude, CONUS. */
const DEFAULT_PRODUCT_LEVEL = 'ReflectivityAtLowestAltitude_00.50';

export const MRMS_LIMITS = {
  /** The newest files kept published: 30 is an hour at MRMS's 2-minute cadence. */
  backfill: { min: 1, max: 720, default: 30 },
  /** Seconds between looks at the source (default depends on the source, see below). */
  pollS: { min: 1, max: 3600 },
  /**
   * Deepest zoom rendered: z7 pixels are about one MRMS cell (docs/rendering.md); z8 already
   * draws each cell twice over, and every zoom deeper quadruples the worst render (a CONUS grid
   * full of echo), so 8 is the most a source is rendered at.
   */
  maxZoom: { min: 0, max: 8, default: 7 },
  /** Render threads: each holds a decoded mosaic (about 300 MB) while it works. */
  workers: { min: 1, max: 2, default: 1 },
  /** Seconds a source request may wait for data before it counts as failed. */
  timeoutS: { min: 1, max: 600, default: 30 },
  /**
   * Seconds a frame waits for its PrecipFlag: NOAA writes both products of a cycle within
   * seconds of each other, so a minute covers a slow flag without holding a frame long.
   */
  typeWaitS: { min: 0, max: 600, default: 60 },
} as const satisfies Record<string, IntegerLimit>;

/**
 * Default poll period of a source: an S3 poll lists only keys after the newest one seen and a
 * directory scan is local, so both look every 2 s; an HTTP listing is the whole index page
 * each time, so it is fetched every 30 s.
 */
export function defaultPollS(source: MrmsSource): number {
  return source.kind === 'http' ? 30 : 2;
}

/** What an `MRMS_SOURCE` value means, or the problem with it. */
export type SourceParse =
  | { readonly ok: true; readonly source: MrmsSource }
  | { readonly ok: false; readonly problem: string };

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Reads `MRMS_SOURCE`: `s3://bucket/prefix/` (the product's folder; day folders below it),
 * `http(s)://...` (a directory listing), anything else a local directory (relative to `cwd`).
 * Unset: NOAA's bucket with the product's folder, `CONUS/{productLevel}/`.
 */
export function parseMrmsSource(
  value: string | undefined,
  options: { productLevel: string; endpoint: string; region: string; cwd: string },
): SourceParse {
  const { productLevel, endpoint, region, cwd } = options;
  if (value === undefined) {
    return {
      ok: true,
      source: {
        kind: 's3',
        endpoint,
        region,
        bucket: NOAA_MRMS_BUCKET,
        prefix: `CONUS/${productLevel}/`,
      },
    };
  }
  if (value.startsWith('s3://')) {
    const rest = value.slice('s3://'.length);
    const slash = rest.indexOf('/');
    const bucket = slash < 0 ? rest : rest.slice(0, slash);
    let prefix = slash < 0 ? '' : rest.slice(slash + 1);
    if (!BUCKET_NAME.test(bucket))
      return { ok: false, problem: `"${bucket}" is not an S3 bucket name (s3://bucket/prefix/)` };
    if (prefix !== '' && !prefix.endsWith('/')) prefix += '/';
    return { ok: true, source: { kind: 's3', endpoint, region, bucket, prefix } };
  }
  if (/^https?:\/\//i.test(value)) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return { ok: false, problem: `"${value}" is not a URL` };
    }
    if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
      return {
        ok: false,
        problem: 'an HTTP source must not carry credentials, a query or a fragment',
      };
    if (!url.pathname.endsWith('/')) url.pathname += '/';
    return { ok: true, source: { kind: 'http', url: url.toString() } };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value))
    return { ok: false, problem: `"${value}": use s3://, http(s):// or a directory path` };
  return { ok: true, source: { kind: 'dir', dir: path.resolve(cwd, value) } };
}

/**
 * The product a source implies when `MRMS_PRODUCT` is unset: the last folder of an S3 prefix
 * when it is a product folder (`CONUS/MergedReflectivityQCComposite_00.50/`), else the default.
 */
export function impliedProductLevel(value: string | undefined): string {
  if (value?.startsWith('s3://')) {
    const folders = value.slice('s3://'.length).split('/').filter(Boolean).slice(1);
    const last = folders.at(-1);
    if (last !== undefined && PRODUCT_LEVEL.test(last)) return last;
  }
  return DEFAULT_PRODUCT_LEVEL;
}

/** The flag product paired with reflectivity by default: MRMS's surface precipitation type. */
export const DEFAULT_TYPE_PRODUCT = PRECIP_FLAG_PRODUCT;

/**
 * Where the flag product `typeProduct` lies in the same source as `productLevel`: NOAA keeps
 * each product in its own folder, named with its level in the bucket
 * (`CONUS/ReflectivityAtLowestAltitude_00.50/`) and without it in the HTTP listings
 * (`data/2D/ReflectivityAtLowestAltitude/`), so a source whose last folder names the
 * reflectivity product either way has the flag in the sibling folder named the same way
 * (`CONUS/PrecipFlag_00.00/`, `data/2D/PrecipFlag/`); any other source (a bucket prefix,
 * listing or directory holding several products) is searched as it is, by file name.
 */
export function typeSource(
  source: MrmsSource,
  productLevel: string,
  typeProduct: string,
): MrmsSource {
  const withoutLevel = (name: string) => name.replace(/_[0-9]{2}\.[0-9]{2}$/, '');
  const siblingName = (folder: string): string | undefined =>
    folder === productLevel
      ? typeProduct
      : folder === withoutLevel(productLevel)
        ? withoutLevel(typeProduct)
        : undefined;
  const sibling = (folders: string): string | undefined => {
    const trimmed = folders.replace(/\/+$/, '');
    const cut = trimmed.lastIndexOf('/');
    const name = siblingName(trimmed.slice(cut + 1));
    return name === undefined ? undefined : `${trimmed.slice(0, cut + 1)}${name}/`;
  };
  switch (source.kind) {
    case 's3': {
      const prefix = sibling(source.prefix);
      return prefix === undefined ? source : { ...source, prefix };
    }
    case 'http': {
      const url = new URL(source.url);
      const pathname = sibling(url.pathname);
      if (pathname === undefined) return source;
      url.pathname = pathname;
      return { kind: 'http', url: url.toString() };
    }
    case 'dir': {
      const name = siblingName(path.basename(source.dir));
      return name === undefined
        ? source
        : { kind: 'dir', dir: path.join(path.dirname(source.dir), name) };
    }
  }
}
