import { bytesToHeader } from 'pmtiles';
import {
  decodeHeader,
  encodeHeader,
  HEADER_BYTES,
  type PmtilesHeader,
} from '../../../src/pmtiles/header';

const sample: PmtilesHeader = {
  specVersion: 3,
  rootDirectoryOffset: 127,
  rootDirectoryLength: 321,
  jsonMetadataOffset: 448,
  jsonMetadataLength: 77,
  leafDirectoryOffset: 525,
  leafDirectoryLength: 4096,
  tileDataOffset: 4621,
  tileDataLength: 2 ** 40 + 12345, // exercises the high 32 bits
  numAddressedTiles: 2 ** 33,
  numTileEntries: 123456,
  numTileContents: 789,
  clustered: true,
  internalCompression: 2,
  tileCompression: 1,
  tileType: 2,
  minZoom: 0,
  maxZoom: 14,
  minLon: -127.5,
  minLat: 21.1234567,
  maxLon: -66.25,
  maxLat: 50.0000001,
  centerZoom: 4,
  centerLon: -96.9876543,
  centerLat: 38.5,
};

describe('PMTiles header', () => {
  it('round-trips every field through 127 bytes', () => {
    const bytes = encodeHeader(sample);
    expect(bytes).toHaveLength(HEADER_BYTES);
    expect(bytes.subarray(0, 8).toString('latin1')).toBe('PMTiles\x03');
    expect(decodeHeader(bytes)).toEqual(sample);
  });

  it('is read identically by the pmtiles package', () => {
    const bytes = encodeHeader(sample);
    const theirs = bytesToHeader(new Uint8Array(bytes).buffer);
    expect(theirs).toEqual(sample); // toEqual ignores their undefined `etag`
  });

  it('decodes a header inside a larger, offset view', () => {
    const padded = Buffer.concat([Buffer.alloc(5), encodeHeader(sample), Buffer.alloc(50)]);
    expect(decodeHeader(padded.subarray(5))).toEqual(sample);
  });

  it('throws on a short buffer, bad magic and unsafe 64-bit fields', () => {
    const bytes = encodeHeader(sample);
    expect(() => decodeHeader(bytes.subarray(0, 126))).toThrow(RangeError);
    const wrong = Buffer.from(bytes);
    wrong.write('PMTilez', 0, 'latin1');
    expect(() => decodeHeader(wrong)).toThrow(/magic/);
    const huge = Buffer.from(bytes);
    huge.writeUInt32LE(0x00200000, 64 + 4); // tile data length = 2^53
    expect(() => decodeHeader(huge)).toThrow(RangeError);
  });

  it('returns other versions as found (the caller decides)', () => {
    const v2 = Buffer.from(encodeHeader(sample));
    v2[7] = 2;
    expect(decodeHeader(v2).specVersion).toBe(2);
  });

  it('refuses to encode fields that do not fit', () => {
    expect(() => encodeHeader({ ...sample, maxZoom: 256 })).toThrow(RangeError);
    expect(() => encodeHeader({ ...sample, tileDataOffset: -1 })).toThrow(RangeError);
    expect(() => encodeHeader({ ...sample, tileDataLength: 2 ** 53 })).toThrow(RangeError);
    expect(() => encodeHeader({ ...sample, minLon: 215 })).toThrow(RangeError);
    expect(() => encodeHeader({ ...sample, centerLat: Number.NaN })).toThrow(RangeError);
  });
});
