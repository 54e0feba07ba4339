/**
 * How the page writes radar times: the timestamp digits are UTC (docs/behaviour.md), shown both
 * in UTC, the meteorological convention, and in the viewer's local zone. Every time the page
 * writes carries its zone; clock times (when the request quota resets) are UTC like the frames.
 */
import { timestampToDate } from '../src/client/status';

/** `2026-01-15 12:04 UTC` for `202601151204`. */
export function formatUtc(timestamp: string): string {
  const t = timestamp;
  return `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)} ${t.slice(8, 10)}:${t.slice(10, 12)} UTC`;
}

/** The same instant in the browser's time zone, e.g. `Jan 15, 2026, 7:04 AM EST`. */
export function formatLocal(timestamp: string): string {
  const date = timestampToDate(timestamp);
  if (!date) return '';
  // dateStyle/timeStyle cannot be combined with timeZoneName, hence the explicit fields.
  return new Intl.DateTimeFormat(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(date);
}

/** Ages up to this many minutes are written as an age; older frames by their date. */
export const AGE_LIMIT_MIN = 24 * 60;

/**
 * Age of a timestamp in words: `just now`, `4 min ago`, `2 h 5 min ago`; a frame older than a
 * day (an archived one) by its date instead, `from 2023-04-06 12:00 UTC`.
 */
export function formatAge(timestamp: string, nowMs: number): string {
  const date = timestampToDate(timestamp);
  if (!date) return '';
  const minutes = Math.floor((nowMs - date.getTime()) / 60_000);
  if (minutes > AGE_LIMIT_MIN) return `from ${formatUtc(timestamp)}`;
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min ago`;
}

/** Clock time of an epoch-ms instant in UTC, like the frames' times: `12:03:05 UTC`. */
export function formatClock(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(11, 19)} UTC`;
}
