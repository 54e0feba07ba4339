import {
  formatTimestamp,
  hasTimestampShape,
  parseTimestamp,
  timestampFromFileName,
} from '../../../src/domain/timestamps';

describe('parseTimestamp', () => {
  it('parses a UTC calendar minute', () => {
    expect(parseTimestamp('202611221402')).toBe(Date.UTC(2026, 10, 22, 14, 2));
    expect(parseTimestamp('202402291200')).toBe(Date.UTC(2024, 1, 29, 12, 0));
  });
  it.each([
    '202613011200',
    '202602301200',
    '202502291200',
    '202611222400',
    '202611221460',
    '202600011200',
    '202611001200',
  ])('rejects the impossible minute %s', (ts) => expect(parseTimestamp(ts)).toBeUndefined());
  it.each([
    '',
    '20261122140',
    '2026112214000',
    '２０２６１１２２１４００',
    ' 02611221400',
    '2026-1122140',
  ])('rejects the malformed value %j', (ts) => {
    expect(hasTimestampShape(ts)).toBe(false);
    expect(parseTimestamp(ts)).toBeUndefined();
  });
  it.each(['005001010000', '000001010000', '009912312359', '000002290000', '040002291200'])(
    'reads the early or far year of %s as written, like any other year',
    (ts) => {
      const ms = parseTimestamp(ts);
      expect(ms).toBeDefined();
      expect(formatTimestamp(ms!)).toBe(ts);
    },
  );
  it.each(['010002290000', '190002290000', '005002290000'])(
    'rejects Feb 29 of the common year in %s',
    (ts) => expect(parseTimestamp(ts)).toBeUndefined(),
  );
  it('round-trips with formatTimestamp', () => {
    const ms = Date.UTC(2031, 0, 5, 3, 7);
    expect(parseTimestamp(formatTimestamp(ms + 59_999))).toBe(ms);
  });
});

describe('timestampFromFileName', () => {
  it('accepts only {YYYYMMDDHHmm}.pmtiles', () => {
    expect(timestampFromFileName('202611221400.pmtiles')).toBe('202611221400');
    for (const name of [
      '202611221400.pmtiles.tmp',
      'x202611221400.pmtiles',
      '202613221400.pmtiles',
      'a/202611221400.pmtiles',
    ]) {
      expect(timestampFromFileName(name)).toBeUndefined();
    }
  });
});
