/**
 * Section 1 (identification): originating centre and the reference time. The reference time
 * must be a real UTC calendar instant; a corrupt date is an error rather than a Date that
 * silently rolls over (month 13 becoming January of the next year).
 */
import { utcCalendarMs } from '../../../domain/timestamps';
import type { SectionView } from './section-view';

/** What the rest of the reader needs from section 1. */
export interface Identification {
  readonly centre: number;
  readonly subCentre: number;
  readonly referenceTimeSignificance: number;
  readonly referenceTime: Date;
}

/** Octets 1-21 are mandatory; anything after octet 21 is reserved and ignored. */
const MIN_LENGTH = 21;

/** Reads section 1; fails on a short section or an impossible date. */
export function readIdentification(section: SectionView): Identification {
  if (section.length < MIN_LENGTH) {
    section.fail(`length ${section.length} is below the ${MIN_LENGTH} octets it needs`);
  }
  const year = section.uint(13, 2);
  const month = section.uint(15, 1);
  const day = section.uint(16, 1);
  const hour = section.uint(17, 1);
  const minute = section.uint(18, 1);
  const second = section.uint(19, 1);
  const ms = utcCalendarMs(year, month, day, hour, minute, second);
  if (ms === undefined || year < 1) {
    const pad = (n: number) => String(n).padStart(2, '0');
    section.fail(
      `reference time ${year}-${pad(month)}-${pad(day)} ${pad(hour)}:${pad(minute)}:${pad(second)} is not a real UTC time`,
    );
  }
  return {
    centre: section.uint(6, 2),
    subCentre: section.uint(8, 2),
    referenceTimeSignificance: section.uint(12, 1),
    referenceTime: new Date(ms),
  };
}
