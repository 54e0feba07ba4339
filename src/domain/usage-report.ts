/**
 * The usage report: what `npm run keys -- usage --json` prints and the admin listener's
 * `GET /usage` serves, built from the stored key-hours and the key registry. Pure, so both
 * give the same answer for the same data (docs/usage.md, "Reading it").
 */
import type { KeyRegistryData } from './key-records';
import {
  ABORTED_STATUS,
  BYTES_FIELD,
  hourIso,
  REFUSED_STATUSES,
  REQUESTS_FIELD,
  ROUTE_BYTES_FIELD_PREFIX,
  ROUTE_FIELD_PREFIX,
  STATUS_FIELD_PREFIX,
  type UsageEntry,
} from './usage';

/** One key's usage over the report's hours. */
export interface KeyUsage {
  readonly key: string;
  /** Apps bound to the key in the registry now (empty for a key no longer registered). */
  readonly apps: readonly string[];
  /** The key's limit per window now; null for a key no longer registered. */
  readonly limit: number | null;
  readonly requests: number;
  readonly bytes: number;
  /** Refused for this key: 401 (known key, app unknown), 403 and 429. */
  readonly refused: number;
  /** Responses cut before their end (status 499: the client left, or the send timeout). */
  readonly aborted: number;
  /** Requests by status (`"200"`, `"206"`, `"304"`, `"416"`, `"429"`, `"499"`, ...). */
  readonly statuses: Readonly<Record<string, number>>;
  /** Requests and bytes by route template. */
  readonly routes: Readonly<Record<string, { readonly requests: number; readonly bytes: number }>>;
  /** The hour with the most requests (the earliest of equals), or null without requests. */
  readonly peakHour: { readonly hour: string; readonly requests: number } | null;
  /**
   * The peak hour's requests that spent a rate-limit point (all but 401, 403 and 429) over the
   * hour's allowance at the key's limit (`limit × 3600 / windowS`); 1 means the key used its
   * whole limit in every window of that hour. Null for a key no longer registered.
   */
  readonly share: number | null;
}

export interface UsageReport {
  /** Start of the first hour (ISO 8601, UTC) and end of the last (exclusive). */
  readonly from: string;
  readonly to: string;
  readonly hours: number;
  /** `RADAR_RATE_WINDOW_S`, the window `share` is measured against. */
  readonly windowS: number;
  /** Keys with requests in those hours, busiest first (ties by key id). */
  readonly keys: readonly KeyUsage[];
  readonly totals: { readonly requests: number; readonly bytes: number; readonly refused: number };
}

/** A usage report's question: how many hours back, which key or app (docs/usage.md). */
export interface UsageQuestion {
  readonly hours: number;
  readonly key?: string;
  readonly app?: string;
}

/** What a report covers, and what it knows about limits. */
export interface UsageReportScope {
  readonly fromHour: number;
  readonly toHour: number;
  readonly windowS: number;
  /** `RADAR_RATE_LIMIT`: the limit of registered keys without their own. */
  readonly defaultLimit: number;
  /** Only this key (`--key`, `key=`). */
  readonly key?: string;
  /** Only keys bound to this app in the registry now (`--app`, `app=`). */
  readonly app?: string;
}

/** Longest period a report covers, in hours (a year). */
export const MAX_REPORT_HOURS = 366 * 24;

/**
 * Hours of a `--since` / `since=` value: `<n>h` or `<n>d` (`24h`, `7d`), whole and at least 1
 * hour. Returns a message instead when the value is not one.
 */
export function parseSince(value: string): number | string {
  const m = /^([1-9][0-9]{0,5})([hd])$/.exec(value.trim());
  const hours = m ? Number(m[1]) * (m[2] === 'd' ? 24 : 1) : NaN;
  if (!Number.isInteger(hours) || hours > MAX_REPORT_HOURS)
    return `since must be hours or days such as 24h or 7d (at most ${MAX_REPORT_HOURS}h), not "${value}"`;
  return hours;
}

/**
 * The hours a `since` of `hours` covers at `nowHour`: the current (partial) hour and the
 * `hours - 1` before it.
 */
export function reportHours(hours: number, nowHour: number): { fromHour: number; toHour: number } {
  return { fromHour: nowHour - hours + 1, toHour: nowHour };
}

/**
 * The key ids a scope restricts the read to (a key, the keys bound to an app now, or a key
 * only if bound to the app), or undefined for every key.
 */
export function scopedKeys(
  scope: UsageReportScope,
  registry: KeyRegistryData,
): string[] | undefined {
  const { key, app } = scope;
  if (app === undefined) return key === undefined ? undefined : [key];
  const bound = registry.keys.filter((k) => k.apps.includes(app)).map((k) => k.id);
  return key === undefined ? bound : bound.filter((id) => id === key);
}

interface Tally {
  requests: number;
  bytes: number;
  statuses: Record<string, number>;
  routes: Record<string, { requests: number; bytes: number }>;
  byHour: Map<number, { requests: number; points: number }>;
}

/**
 * The report of `entries` within the scope's hours and keys, with each key's apps and limit
 * from `registry` (as it is now). Keys without requests in those hours are left out. `wanted`
 * is the scope's keys (`scopedKeys`), passed by a caller that already has them from its read.
 */
export function buildUsageReport(
  entries: readonly UsageEntry[],
  registry: KeyRegistryData,
  scope: UsageReportScope,
  wanted: readonly string[] | undefined = scopedKeys(scope, registry),
): UsageReport {
  const only = wanted === undefined ? undefined : new Set(wanted);
  const tallies = new Map<string, Tally>();
  for (const { keyId, hour, counts } of entries) {
    if (hour < scope.fromHour || hour > scope.toHour) continue;
    if (only !== undefined && !only.has(keyId)) continue;
    let t = tallies.get(keyId);
    if (t === undefined) {
      t = { requests: 0, bytes: 0, statuses: {}, routes: {}, byHour: new Map() };
      tallies.set(keyId, t);
    }
    const requests = counts[REQUESTS_FIELD] ?? 0;
    t.requests += requests;
    t.bytes += counts[BYTES_FIELD] ?? 0;
    let refusedThisHour = 0;
    for (const [field, n] of Object.entries(counts)) {
      if (field.startsWith(STATUS_FIELD_PREFIX)) {
        const status = field.slice(STATUS_FIELD_PREFIX.length);
        t.statuses[status] = (t.statuses[status] ?? 0) + n;
        if (REFUSED_STATUSES.includes(Number(status))) refusedThisHour += n;
      } else if (field.startsWith(ROUTE_BYTES_FIELD_PREFIX)) {
        const route = (t.routes[field.slice(ROUTE_BYTES_FIELD_PREFIX.length)] ??= {
          requests: 0,
          bytes: 0,
        });
        route.bytes += n;
      } else if (field.startsWith(ROUTE_FIELD_PREFIX)) {
        const route = (t.routes[field.slice(ROUTE_FIELD_PREFIX.length)] ??= {
          requests: 0,
          bytes: 0,
        });
        route.requests += n;
      }
    }
    const slot = t.byHour.get(hour) ?? { requests: 0, points: 0 };
    slot.requests += requests;
    slot.points += requests - refusedThisHour;
    t.byHour.set(hour, slot);
  }

  const registered = new Map(registry.keys.map((k) => [k.id, k]));
  const keys: KeyUsage[] = [];
  for (const [keyId, t] of tallies) {
    if (t.requests === 0) continue;
    const record = registered.get(keyId);
    const limit = record === undefined ? null : (record.limit ?? scope.defaultLimit);
    let peak: { hour: number; requests: number; points: number } | undefined;
    for (const [hour, slot] of t.byHour)
      if (
        peak === undefined ||
        slot.requests > peak.requests ||
        (slot.requests === peak.requests && hour < peak.hour)
      )
        peak = { hour, ...slot };
    const allowance = limit === null ? 0 : (limit * 3600) / scope.windowS;
    const refused = REFUSED_STATUSES.reduce((sum, s) => sum + (t.statuses[String(s)] ?? 0), 0);
    keys.push({
      key: keyId,
      apps: record?.apps ?? [],
      limit,
      requests: t.requests,
      bytes: t.bytes,
      refused,
      aborted: t.statuses[String(ABORTED_STATUS)] ?? 0,
      statuses: sortedRecord(t.statuses),
      routes: sortedRecord(t.routes),
      peakHour: peak === undefined ? null : { hour: hourIso(peak.hour), requests: peak.requests },
      share:
        peak === undefined || allowance === 0
          ? null
          : Math.round((peak.points / allowance) * 1e4) / 1e4,
    });
  }
  keys.sort((a, b) => b.requests - a.requests || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    from: hourIso(scope.fromHour),
    to: hourIso(scope.toHour + 1),
    hours: scope.toHour - scope.fromHour + 1,
    windowS: scope.windowS,
    keys,
    totals: {
      requests: keys.reduce((sum, k) => sum + k.requests, 0),
      bytes: keys.reduce((sum, k) => sum + k.bytes, 0),
      refused: keys.reduce((sum, k) => sum + k.refused, 0),
    },
  };
}

function sortedRecord<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)));
}
