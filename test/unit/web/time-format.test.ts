/**
 * The viewer's times: every one carries its zone (the quota's reset in UTC like the frames),
 * and an archived frame is described by its date, not by thousands of hours.
 */
import { formatAge, formatClock, formatUtc } from '../../../web/time-format';

const at = (iso: string) => Date.parse(iso);

it('writes recent ages in minutes and hours', () => {
  const now = at('2026-11-28T12:42:30Z');
  expect(formatAge('202611281242', now)).toBe('just now');
  expect(formatAge('202611281238', now)).toBe('4 min ago');
  expect(formatAge('202611281037', now)).toBe('2 h 5 min ago');
  expect(formatAge('202611271243', now)).toBe('23 h 59 min ago');
});

it('writes an archived frame by its date', () => {
  const now = at('2026-11-28T12:42:30Z');
  expect(formatAge('202304061200', now)).toBe('from 2023-04-06 12:00 UTC');
  expect(formatAge('202611271200', now)).toBe('from 2026-11-27 12:00 UTC');
  expect(formatUtc('202304061200')).toBe('2023-04-06 12:00 UTC');
});

it('writes clock times in UTC with the zone, whatever the machine zone', () => {
  expect(formatClock(at('2026-11-28T12:43:23.900Z'))).toBe('12:43:23 UTC');
  expect(formatClock(at('2026-11-28T00:00:05Z'))).toBe('00:00:05 UTC');
});
