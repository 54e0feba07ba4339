/**
 * Section 4 (product definition) with product template 4.0, "analysis or forecast at a
 * horizontal level at a point in time", which every MRMS 2-D product uses: parameter category
 * and number, the forecast time (giving the valid time) and the two fixed surfaces.
 */
import type { FixedSurface, ProductDefinition } from './types';
import type { SectionView } from './section-view';

/** Template 4.0 ends at octet 34; coordinate values (4 octets each) may follow. */
const TEMPLATE_4_0_LENGTH = 34;

/** Seconds per unit of code table 4.4, for the units of fixed length. */
const UNIT_SECONDS: Readonly<Record<number, number>> = {
  0: 60,
  1: 3600,
  2: 86400,
  10: 3 * 3600,
  11: 6 * 3600,
  12: 12 * 3600,
  13: 1,
};
/** Months per unit of code table 4.4, for the calendar units (month, year, decade, 30 years, century). */
const UNIT_MONTHS: Readonly<Record<number, number>> = { 3: 1, 4: 12, 5: 120, 6: 360, 7: 1200 };

/** Reads section 4; the valid time is `referenceTime` plus the forecast time. */
export function readProductDefinition(
  section: SectionView,
  referenceTime: Date,
): ProductDefinition {
  if (section.length < 9) section.fail(`length ${section.length} is below its 9-octet header`);
  const template = section.uint(8, 2);
  if (template !== 0) section.fail(`product template 4.${template} is not supported (only 4.0)`);
  const coordinates = section.uint(6, 2);
  const expected = TEMPLATE_4_0_LENGTH + 4 * coordinates;
  if (section.length !== expected) {
    section.fail(
      `length ${section.length} is not the ${expected} octets of template 4.0 with ${coordinates} coordinate values`,
    );
  }
  const forecastUnit = section.uint(18, 1);
  const forecastTime = section.signed(19, 4);
  return {
    productTemplate: template,
    category: section.uint(10, 1),
    parameter: section.uint(11, 1),
    forecastTime,
    forecastUnit,
    validTime: addForecastTime(referenceTime, forecastTime, forecastUnit, section),
    firstSurface: readSurface(section, 23),
    secondSurface: readSurface(section, 29),
  };
}

function readSurface(section: SectionView, octet: number): FixedSurface {
  const type = section.uint(octet, 1);
  // Type 255 is "missing": its value octets carry no meaning whatever they hold.
  if (type === 255 || section.isMissing(octet + 1, 1) || section.isMissing(octet + 2, 4)) {
    return { type, value: null };
  }
  const scale = section.signed(octet + 1, 1);
  const value = section.signed(octet + 2, 4);
  return { type, value: value / 10 ** scale };
}

function addForecastTime(
  referenceTime: Date,
  amount: number,
  unit: number,
  section: SectionView,
): Date {
  const seconds = UNIT_SECONDS[unit];
  const months = UNIT_MONTHS[unit];
  let valid: Date;
  if (seconds !== undefined) {
    valid = new Date(referenceTime.getTime() + amount * seconds * 1000);
  } else if (months !== undefined) {
    valid = new Date(referenceTime.getTime());
    valid.setUTCMonth(valid.getUTCMonth() + amount * months);
  } else {
    return section.fail(`forecast time unit ${unit} (code table 4.4) is not supported`);
  }
  if (Number.isNaN(valid.getTime())) {
    section.fail(`forecast time ${amount} in unit ${unit} gives no representable valid time`);
  }
  return valid;
}
