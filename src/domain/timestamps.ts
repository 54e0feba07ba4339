/**
 * Radar timestamps: 12 UTC digits `YYYYMMDDHHmm`, the public identifier of an archive.
 * Kept pure so the HTTP layer, ingest and simulator agree on one definition.
 */

const TWELVE_DIGITS = /^[0-9]{12}$/;

/** True when `value` has the timestamp shape (12 decimal digits), whatever its calendar meaning. */
export function hasTimestampShape(value: string): boolean {
  return TWELVE_DIGITS.test(value);
}

/**
 * Epoch milliseconds of a UTC calendar instant (month 1-12), or `undefined` when it is not a
 * real one (month 13, Feb 30, hour 24, second 60 are rejected, never rolled over). Every year
 * is read as written, in the proleptic Gregorian calendar (`Date.UTC` would read 0-99 as
 * 1900-1999), so all valid instants are judged alike. The one calendar check of timestamps,
 * MRMS file names and GRIB2 reference times.
 */
export function utcCalendarMs(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): number | undefined {
  const check = new Date(0);
  check.setUTCFullYear(year, month - 1, day);
  check.setUTCHours(hour, minute, second, 0);
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    check.getUTCHours() !== hour ||
    check.getUTCMinutes() !== minute ||
    check.getUTCSeconds() !== second
  ) {
    return undefined;
  }
  return check.getTime();
}

/**
 * Epoch milliseconds of a timestamp, or `undefined` when it is not 12 digits or not a real
 * UTC calendar minute ({@link utcCalendarMs}: every year 0000-9999 read as written).
 */
export function parseTimestamp(value: string): number | undefined {
  if (!hasTimestampShape(value)) return undefined;
  return utcCalendarMs(
    Number(value.slice(0, 4)),
    Number(value.slice(4, 6)),
    Number(value.slice(6, 8)),
    Number(value.slice(8, 10)),
    Number(value.slice(10, 12)),
    0,
  );
}

/** Formats epoch milliseconds as a UTC timestamp, truncating seconds. */
export function formatTimestamp(epochMs: number): string {
  const d = new Date(epochMs);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return (
    pad(d.getUTCFullYear(), 4) +
    pad(d.getUTCMonth() + 1) +
    pad(d.getUTCDate()) +
    pad(d.getUTCHours()) +
    pad(d.getUTCMinutes())
  );
}

/** Object/file name of an archive: `{YYYYMMDDHHmm}.pmtiles`. */
export function archiveFileName(timestamp: string): string {
  return `${timestamp}.pmtiles`;
}

const ARCHIVE_NAME = /^([0-9]{12})\.pmtiles$/;

/** The timestamp named by an archive file name, or `undefined` for any other name. */
export function timestampFromFileName(name: string): string | undefined {
  const match = ARCHIVE_NAME.exec(name);
  if (!match || match[1] === undefined) return undefined;
  return parseTimestamp(match[1]) === undefined ? undefined : match[1];
}
