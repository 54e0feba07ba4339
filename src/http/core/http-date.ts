/**
 * Strict HTTP-date parser (RFC 9110 §5.6.7). `Date.parse` accepts almost anything ("2099",
 * ISO-8601, local-time asctime) and would let such junk decide a 304, a 412 or an If-Range;
 * here exactly the three HTTP-date forms are dates, all read as GMT whatever the process
 * time zone, and everything else is `undefined` so the caller ignores its condition.
 *
 * - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
 * - rfc850-date: `Sunday, 06-Nov-94 08:49:37 GMT` (two-digit year: a year more than 50 years
 *   in the future means the most recent past year with those digits, §5.6.7)
 * - asctime-date: `Sun Nov  6 08:49:37 1994`
 *
 * Names are case-sensitive as the grammar says (`%s`). The day name must be a valid name but
 * is not checked against the date (the grammar does not tie them, and the numeric date is what
 * a client compares). Impossible calendar dates (Feb 30, hour 24, minute 60) are not dates;
 * second 60 (a leap second, allowed by the grammar) is read as 59.
 */

const DAY_NAMES = 'Mon|Tue|Wed|Thu|Fri|Sat|Sun';
const DAY_NAMES_LONG = 'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = MONTHS.join('|');
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

const IMF_FIXDATE = new RegExp(`^(?:${DAY_NAMES}), (\\d{2}) (${MONTH}) (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^(?:${DAY_NAMES_LONG}), (\\d{2})-(${MONTH})-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^(?:${DAY_NAMES}) (${MONTH}) (\\d{2}| \\d) ${TIME} (\\d{4})$`);

interface DateFields {
  readonly year: number;
  readonly month: string;
  readonly day: string;
  readonly hour: string;
  readonly minute: string;
  readonly second: string;
}

/** Epoch seconds of valid fields, or `undefined` for an impossible calendar date or time. */
function toEpochSeconds(fields: DateFields): number | undefined {
  const month = MONTHS.indexOf(fields.month);
  const day = Number(fields.day.trim());
  const hour = Number(fields.hour);
  const minute = Number(fields.minute);
  const second = Math.min(Number(fields.second), 59);
  if (hour > 23 || minute > 59 || Number(fields.second) > 60 || day < 1) return undefined;
  // setUTCFullYear takes years below 100 as written (Date.UTC would read them as 19xx).
  const date = new Date(0);
  date.setUTCFullYear(fields.year, month, day);
  date.setUTCHours(hour, minute, second, 0);
  // An impossible day (Feb 30) rolls over into the next month; that is not the date written.
  if (date.getUTCDate() !== day || date.getUTCMonth() !== month) return undefined;
  return Math.floor(date.getTime() / 1000);
}

/** Full year of an rfc850 two-digit year, relative to the current year (§5.6.7). */
function rfc850Year(twoDigits: number, nowMs: number): number {
  const currentYear = new Date(nowMs).getUTCFullYear();
  let year = currentYear - (currentYear % 100) + twoDigits;
  if (year > currentYear + 50) year -= 100;
  return year;
}

/**
 * Epoch seconds of an HTTP-date, or `undefined` when `value` is not exactly one of the three
 * forms. `nowMs` only resolves rfc850's two-digit year.
 */
export function parseHttpDate(
  value: string | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  if (value === undefined) return undefined;
  let match = IMF_FIXDATE.exec(value);
  if (match) {
    const [, day = '', month = '', year = '', hour = '', minute = '', second = ''] = match;
    return toEpochSeconds({ year: Number(year), month, day, hour, minute, second });
  }
  match = RFC850_DATE.exec(value);
  if (match) {
    const [, day = '', month = '', year = '', hour = '', minute = '', second = ''] = match;
    return toEpochSeconds({
      year: rfc850Year(Number(year), nowMs),
      month,
      day,
      hour,
      minute,
      second,
    });
  }
  match = ASCTIME_DATE.exec(value);
  if (match) {
    const [, month = '', day = '', hour = '', minute = '', second = '', year = ''] = match;
    return toEpochSeconds({ year: Number(year), month, day, hour, minute, second });
  }
  return undefined;
}
