import { planRangeBody, RangeMismatchError } from '../../../../src/adapters/s3/range-response';

const ETAG = '"abc123"';
const exact = (offset: number, length: number, size = 100) => ({
  offset,
  length,
  size,
  etag: ETAG,
});
const head = (length: number) => ({ offset: 0, length, size: undefined, etag: undefined });
const partial = (range: string, length?: number, etag = ETAG) => ({
  'content-range': range,
  ...(length === undefined ? {} : { 'content-length': String(length) }),
  etag,
});

describe('planRangeBody', () => {
  it('accepts an exact 206 answer', () => {
    expect(planRangeBody(206, partial('bytes 10-19/100', 10), exact(10, 10))).toEqual({
      skip: 0,
      length: 10,
      bodyLength: 10,
    });
  });

  it("cuts the window out of s3rver's whole-object answer to bytes=0-0", () => {
    expect(planRangeBody(206, partial('bytes 0-99/100', 100), exact(0, 1))).toEqual({
      skip: 0,
      length: 1,
      bodyLength: 100,
    });
  });

  it('cuts the window out of a 200 whole-object answer', () => {
    const headers = { 'content-length': '100', etag: ETAG };
    expect(planRangeBody(200, headers, exact(40, 5))).toEqual({
      skip: 40,
      length: 5,
      bodyLength: 100,
    });
  });

  it('rejects a 206 that does not cover the window (a suffix range read as bytes=0-n)', () => {
    expect(() => planRangeBody(206, partial('bytes 0-3/100', 4), exact(96, 4))).toThrow(
      RangeMismatchError,
    );
    expect(() => planRangeBody(206, partial('bytes 10-18/100', 9), exact(10, 10))).toThrow(
      RangeMismatchError,
    );
  });

  it('rejects an object of another size or ETag', () => {
    expect(() => planRangeBody(206, partial('bytes 0-9/101', 10), exact(0, 10))).toThrow(
      /size 101/,
    );
    expect(() => planRangeBody(206, partial('bytes 0-9/100', 10, '"other"'), exact(0, 10))).toThrow(
      /ETag/,
    );
    expect(() => planRangeBody(200, { 'content-length': '99' }, exact(0, 10))).toThrow(
      RangeMismatchError,
    );
  });

  it('accepts the same ETag whatever its quoting', () => {
    expect(planRangeBody(206, partial('bytes 0-9/100', 10, 'abc123'), exact(0, 10)).length).toBe(
      10,
    );
  });

  it('rejects inconsistent or missing framing and unexpected statuses', () => {
    expect(() => planRangeBody(206, partial('bytes 0-9/100', 11), exact(0, 10))).toThrow(
      /Content-Length/,
    );
    expect(() => planRangeBody(206, { 'content-length': '10' }, exact(0, 10))).toThrow(
      /Content-Range/,
    );
    expect(() => planRangeBody(206, partial('bytes 5-2/100'), exact(0, 1))).toThrow(
      RangeMismatchError,
    );
    expect(() => planRangeBody(206, partial('bytes 0-100/100'), exact(0, 100))).toThrow(
      RangeMismatchError,
    );
    expect(() => planRangeBody(200, {}, exact(0, 100))).toThrow(/Content-Length/);
    expect(() => planRangeBody(304, {}, exact(0, 100))).toThrow(/status 304/);
  });

  it('head reads accept a shorter object and an empty one', () => {
    expect(planRangeBody(206, partial('bytes 0-49/50', 50), head(16384))).toEqual({
      skip: 0,
      length: 50,
      bodyLength: 50,
    });
    expect(planRangeBody(200, { 'content-length': '50' }, head(16384))).toEqual({
      skip: 0,
      length: 50,
      bodyLength: 50,
    });
    expect(planRangeBody(206, partial('bytes 0-0/0', 1), head(16384))).toEqual({
      skip: 0,
      length: 0,
      bodyLength: 1,
    });
    expect(planRangeBody(206, partial('bytes 0-99/100', 100), head(1))).toEqual({
      skip: 0,
      length: 1,
      bodyLength: 100,
    });
  });
});
