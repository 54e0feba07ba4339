/**
 * The directory-listing parser on an index page in the shape NOAA's MRMS server writes
 * (test/fixtures/mrms-directory-index.html): the product's dated files are found, newest
 * first; sorting links, the parent, sub-directories, other hosts, other products, the
 * `.latest` copy and partial names are not.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { linkFileName, listingLinks } from '../../../../src/sources/mrms/directory-listing';
import { feedFile, parseMrmsFileName } from '../../../../src/sources/mrms/mrms-file-name';

const PAGE = readFileSync(
  path.join(__dirname, '../../../fixtures/mrms-directory-index.html'),
  'utf8',
);
const BASE = 'https://mrms.ncep.noaa.gov/data/2D/ReflectivityAtLowestAltitude/';
const DIR = BASE;

it('keeps only links to files inside the directory, on its origin, without a query', async () => {
  expect(await listingLinks(PAGE, BASE)).toEqual([
    `${DIR}MRMS_ReflectivityAtLowestAltitude.latest.grib2.gz`,
    `${DIR}MRMS_ReflectivityAtLowestAltitude_00.50_20230406-115639.grib2.gz`,
    `${DIR}MRMS_ReflectivityAtLowestAltitude_00.50_20230406-115839.grib2.gz`,
    `${DIR}MRMS_ReflectivityAtLowestAltitude_00.50_20230406-120039.grib2.gz`,
    `${DIR}MRMS_ReflectivityAtLowestAltitude_00.50_20230406-120239.grib2.gz`,
    `${DIR}MRMS_MergedReflectivityQCComposite_00.50_20230406-120039.grib2.gz`,
    `${DIR}MRMS_ReflectivityAtLowestAltitude_00.50_20230406-115439.grib2.gz`,
    `${DIR}MRMS_ReflectivityAtLowestAltitude_00.50_20230406-115239.grib2.gz.part`,
  ]);
});

it('the feed files among them are the product’s dated gzip files', async () => {
  const names = (await listingLinks(PAGE, BASE))
    .map(linkFileName)
    .filter((name) => feedFile(name, name, 'ReflectivityAtLowestAltitude_00.50') !== undefined);
  expect(names.sort().reverse()).toEqual([
    'MRMS_ReflectivityAtLowestAltitude_00.50_20230406-120239.grib2.gz',
    'MRMS_ReflectivityAtLowestAltitude_00.50_20230406-120039.grib2.gz',
    'MRMS_ReflectivityAtLowestAltitude_00.50_20230406-115839.grib2.gz',
    'MRMS_ReflectivityAtLowestAltitude_00.50_20230406-115639.grib2.gz',
    'MRMS_ReflectivityAtLowestAltitude_00.50_20230406-115439.grib2.gz',
  ]);
});

it('resolves a page URL without the trailing slash to its directory, and decodes names', async () => {
  const html = '<a href="MRMS_X_00.50_20230406-120039.grib2.gz">x</a><a href="a%20b.gz">y</a>';
  const links = await listingLinks(html, 'http://127.0.0.1:8000/data/index.html');
  expect(links).toEqual([
    'http://127.0.0.1:8000/data/MRMS_X_00.50_20230406-120039.grib2.gz',
    'http://127.0.0.1:8000/data/a%20b.gz',
  ]);
  expect(linkFileName(links[1]!)).toBe('a b.gz');
});

it('reads an MRMS name: product, level and the valid time to the second', () => {
  expect(
    parseMrmsFileName('MRMS_ReflectivityAtLowestAltitude_00.50_20230406-120039.grib2.gz'),
  ).toEqual({
    productLevel: 'ReflectivityAtLowestAltitude_00.50',
    product: 'ReflectivityAtLowestAltitude',
    level: '00.50',
    timeMs: Date.UTC(2023, 3, 6, 12, 0, 39),
  });
  expect(
    parseMrmsFileName('MRMS_LayerCompositeReflectivity_Low_00.50_20240229-235959.grib2'),
  ).toMatchObject({ product: 'LayerCompositeReflectivity_Low', level: '00.50' });
  for (const bad of [
    'MRMS_ReflectivityAtLowestAltitude.latest.grib2.gz',
    'MRMS_ReflectivityAtLowestAltitude_00.50_20230230-120039.grib2.gz', // Feb 30
    'MRMS_ReflectivityAtLowestAltitude_00.50_20230406-126039.grib2.gz', // minute 60
    'MRMS_ReflectivityAtLowestAltitude_00.50_20230406-120039.grib2.gz.part',
    'XRMS_ReflectivityAtLowestAltitude_00.50_20230406-120039.grib2.gz',
  ])
    expect([bad, parseMrmsFileName(bad)]).toEqual([bad, undefined]);
  const plain = 'MRMS_ReflectivityAtLowestAltitude_00.50_20230406-120039.grib2';
  // The feeds carry gzip files only.
  expect(feedFile(plain, plain, 'ReflectivityAtLowestAltitude_00.50')).toBeUndefined();
  expect(feedFile(`day/${plain}.gz`, `${plain}.gz`, 'ReflectivityAtLowestAltitude_00.50')).toEqual({
    key: `day/${plain}.gz`,
    name: `${plain}.gz`,
    timeMs: Date.UTC(2023, 3, 6, 12, 0, 39),
  });
});

it('reads a year before 100 as written, not as 19xx', () => {
  expect(
    parseMrmsFileName('MRMS_ReflectivityAtLowestAltitude_00.50_00500406-120039.grib2.gz')?.timeMs,
  ).toBe(Date.parse('0050-04-06T12:00:39Z'));
  // Year 0 is a leap year of the proleptic Gregorian calendar; 1900 is not.
  expect(
    parseMrmsFileName('MRMS_ReflectivityAtLowestAltitude_00.50_00000229-000000.grib2.gz')?.timeMs,
  ).toBe(Date.parse('0000-02-29T00:00:00Z'));
});
