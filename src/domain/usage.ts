/**
 * Per-key usage as data: counts of one API key in one UTC hour, under named fields, and the
 * batches a replica hands to the usage store. Pure, so the meter, both stores, the CLI and the
 * admin endpoint agree on one vocabulary (docs/usage.md).
 *
 * Fields of one key-hour (absent fields are 0):
 * - `requests`: answers to requests that named this key (a refused one included);
 * - `bytes`: body bytes handed to the connection (docs/usage.md, "Bytes");
 * - `status:<code>`: answers by status; `status:499` is a response cut before its end;
 * - `route:<template>` and `route-bytes:<template>`: requests and bytes by route template.
 */

/** The usage file's name beside the key file, unless `RADAR_USAGE_FILE` names another. */
export const USAGE_FILE_NAME = 'usage.json';

/** Milliseconds in one usage bucket. */
export const HOUR_MS = 3_600_000;

export const REQUESTS_FIELD = 'requests';
export const BYTES_FIELD = 'bytes';
export const STATUS_FIELD_PREFIX = 'status:';
export const ROUTE_FIELD_PREFIX = 'route:';
export const ROUTE_BYTES_FIELD_PREFIX = 'route-bytes:';

/** The status usage records for a response cut before its end (client gone, send timeout). */
export const ABORTED_STATUS = 499;

/** Statuses that refused the request for its key: credentials or origin (401, 403), limit (429). */
export const REFUSED_STATUSES: readonly number[] = [401, 403, 429];

export function statusField(status: number): string {
  return `${STATUS_FIELD_PREFIX}${status}`;
}

export function routeField(route: string): string {
  return `${ROUTE_FIELD_PREFIX}${route}`;
}

export function routeBytesField(route: string): string {
  return `${ROUTE_BYTES_FIELD_PREFIX}${route}`;
}

/** Counts of one key in one hour, by field. */
export type UsageCounts = Readonly<Record<string, number>>;

/** One key's counts in one hour (`hour`: whole hours since the Unix epoch, UTC). */
export interface UsageEntry {
  readonly keyId: string;
  readonly hour: number;
  readonly counts: UsageCounts;
}

/**
 * What one replica hands the usage store in one flush. `source` names the process (new at
 * every start) and `seq` numbers its batches from 1; a source sends batch n+1 only once batch
 * n was acknowledged, so a store that remembers the highest `seq` applied per source applies
 * every batch exactly once, however often a lost reply makes the source send it again.
 */
export interface UsageBatch {
  readonly source: string;
  readonly seq: number;
  readonly entries: readonly UsageEntry[];
}

/** The hour bucket of an instant. */
export function hourOf(epochMs: number): number {
  return Math.floor(epochMs / HOUR_MS);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `YYYYMMDDHH` (UTC) of an hour bucket: how stores name it. */
export function hourLabel(hour: number): string {
  const d = new Date(hour * HOUR_MS);
  return `${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}`;
}

/** The hour bucket a `YYYYMMDDHH` label names, or undefined. */
export function parseHourLabel(label: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})$/.exec(label);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]));
  return Number.isFinite(ms) && hourLabel(ms / HOUR_MS) === label ? ms / HOUR_MS : undefined;
}

/** ISO 8601 start of an hour bucket, e.g. `2026-05-01T13:00:00Z`: how reports show it. */
export function hourIso(hour: number): string {
  return `${new Date(hour * HOUR_MS).toISOString().slice(0, 19)}Z`;
}

/** Adds `add` into `into`, field by field. */
export function addCounts(into: Record<string, number>, add: UsageCounts): void {
  for (const field in add) into[field] = (into[field] ?? 0) + add[field]!;
}

/**
 * Whether `value` is a well-formed counts object: fields are non-empty strings, values
 * non-negative safe integers. Stores check what they read, so a damaged record is refused
 * rather than reported as usage.
 */
export function isUsageCounts(value: unknown): value is UsageCounts {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  for (const [field, count] of Object.entries(value as Record<string, unknown>))
    if (field === '' || typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0)
      return false;
  return true;
}
