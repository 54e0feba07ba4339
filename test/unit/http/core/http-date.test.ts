import { parseHttpDate } from '../../../../src/http/core/http-date';

const seconds = (iso: string) => Date.parse(iso) / 1000;
// 2026-11-23: rfc850 two-digit years resolve relative to this.
const NOW = Date.parse('2026-11-23T08:00:00Z');

describe('the three HTTP-date forms, all GMT', () => {
  it.each([
    ['Sun, 06 Nov 1994 08:49:37 GMT', '1994-11-06T08:49:37Z'],
    ['Sunday, 06-Nov-94 08:49:37 GMT', '1994-11-06T08:49:37Z'],
    ['Sun Nov  6 08:49:37 1994', '1994-11-06T08:49:37Z'],
    ['Sun Nov 16 08:49:37 1994', '1994-11-16T08:49:37Z'],
    ['Mon, 23 Nov 2026 07:06:21 GMT', '2026-11-23T07:06:21Z'],
    ['Thu, 01 Jan 1970 00:00:00 GMT', '1970-01-01T00:00:00Z'],
    ['Thu, 29 Feb 2024 23:59:59 GMT', '2024-02-29T23:59:59Z'],
    // Leap second (the grammar allows 60): read as :59 of that minute.
    ['Sat, 31 Dec 2016 23:59:60 GMT', '2016-12-31T23:59:59Z'],
    // The day name is a valid name but is not checked against the date.
    ['Mon, 06 Nov 1994 08:49:37 GMT', '1994-11-06T08:49:37Z'],
  ])('%s', (value, iso) => {
    expect(parseHttpDate(value, NOW)).toBe(seconds(iso));
  });

  it('reads rfc850 two-digit years within 50 years of now, else the previous century', () => {
    expect(parseHttpDate('Monday, 23-Nov-26 07:06:21 GMT', NOW)).toBe(
      seconds('2026-11-23T07:06:21Z'),
    );
    expect(parseHttpDate('Friday, 01-Jan-76 00:00:00 GMT', NOW)).toBe(
      seconds('2076-01-01T00:00:00Z'),
    );
    expect(parseHttpDate('Friday, 01-Jan-77 00:00:00 GMT', NOW)).toBe(
      seconds('1977-01-01T00:00:00Z'),
    );
    expect(parseHttpDate('Tuesday, 01-Jan-70 00:00:00 GMT', NOW)).toBe(
      seconds('2070-01-01T00:00:00Z'),
    );
  });
});

describe('anything else is not a date', () => {
  it.each([
    '2099',
    '2000',
    '2026-11-23T07:06:21Z',
    '2026-11-23',
    '1700000000',
    '',
    ' ',
    'garbage',
    // Wrong zone or offset, or none where one is required.
    'Sun, 06 Nov 1994 08:49:37 UTC',
    'Sun, 06 Nov 1994 08:49:37 +0000',
    'Sun, 06 Nov 1994 08:49:37',
    'Sun Nov  6 08:49:37 1994 GMT',
    // Case-sensitive names, exact spacing and digit counts.
    'sun, 06 Nov 1994 08:49:37 GMT',
    'Sun, 06 nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 08:49:37 gmt',
    'Sun, 6 Nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 94 08:49:37 GMT',
    'Sun,  06 Nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 8:49:37 GMT',
    ' Sun, 06 Nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 08:49:37 GMT ',
    'Sunday, 06 Nov 1994 08:49:37 GMT',
    'Sun, 06-Nov-94 08:49:37 GMT',
    'Sunday, 06-Nov-1994 08:49:37 GMT',
    'Sun Nov 6 08:49:37 1994',
    'Sun Nov 06 08:49:37 94',
    'Sun, 06 November 1994 08:49:37 GMT',
    // Impossible calendar dates and times.
    'Fri, 30 Feb 2026 00:00:00 GMT',
    'Thu, 29 Feb 2025 00:00:00 GMT',
    'Sun, 31 Nov 1994 08:49:37 GMT',
    'Sun, 00 Nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 24:00:00 GMT',
    'Sun, 06 Nov 1994 08:60:00 GMT',
    'Sun, 06 Nov 1994 08:49:61 GMT',
    'Sun Feb 30 08:49:37 1994',
    // Two dates (a repeated header joined into a list).
    'Sun, 06 Nov 1994 08:49:37 GMT, Sun, 06 Nov 1994 08:49:37 GMT',
  ])('%j', (value) => {
    expect(parseHttpDate(value, NOW)).toBeUndefined();
  });

  it('undefined stays undefined', () => {
    expect(parseHttpDate(undefined)).toBeUndefined();
  });
});
