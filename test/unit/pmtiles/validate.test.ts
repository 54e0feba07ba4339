import { encodeHeader, decodeHeader, type PmtilesHeader } from '../../../src/pmtiles/header';
import { validateArchiveHead } from '../../../src/pmtiles/validate';
import { writePmtiles } from '../../../src/pmtiles/writer';
import { fullPyramid } from '../../fixtures/synthetic-tiles';

const archive = writePmtiles(fullPyramid(0, 6), {
  tileType: 'png',
  minZoom: 0,
  maxZoom: 6,
  bounds: [-127.5, 21.25, -66.5, 50],
  center: [-97, 38.5, 3],
  metadata: { name: 'validate' },
});
const head = archive.subarray(0, 16384);
const good = decodeHeader(archive);

/** The good archive's head with some header fields replaced. */
function withHeader(patch: Partial<PmtilesHeader>): Buffer {
  const out = Buffer.from(head);
  encodeHeader({ ...good, ...patch }).copy(out);
  return out;
}

const reasonOf = (bytes: Uint8Array, size: number): string | undefined => {
  const check = validateArchiveHead(bytes, size);
  return check.ok ? undefined : check.reason;
};

describe('validateArchiveHead', () => {
  it('accepts a writer archive and returns its header', () => {
    expect(archive.length).toBeGreaterThan(16384); // so `head` really is a prefix
    expect(validateArchiveHead(head, archive.length)).toEqual({ ok: true, header: good });
  });

  it('accepts a whole archive smaller than 16 KiB', () => {
    const small = writePmtiles(fullPyramid(0, 1), {
      tileType: 'png',
      minZoom: 0,
      maxZoom: 1,
      bounds: [-180, -85, 180, 85],
      center: [0, 0, 0],
      metadata: {},
    });
    expect(validateArchiveHead(small, small.length).ok).toBe(true);
  });

  it('rejects bad magic', () => {
    const bad = Buffer.from(head);
    bad.write('PNTiles', 0, 'latin1');
    expect(reasonOf(bad, archive.length)).toBe('bad-magic');
    expect(reasonOf(Buffer.alloc(200), archive.length)).toBe('bad-magic');
  });

  it('rejects spec version 2 (and anything but 3)', () => {
    expect(reasonOf(withHeader({ specVersion: 2 }), archive.length)).toBe('bad-version');
    expect(reasonOf(withHeader({ specVersion: 4 }), archive.length)).toBe('bad-version');
  });

  it('rejects a truncated object whose tile data ends past its size', () => {
    expect(reasonOf(head, archive.length - 1)).toBe('section-outside-object');
    expect(reasonOf(withHeader({ jsonMetadataOffset: archive.length }), archive.length)).toBe(
      'section-outside-object',
    );
  });

  it('rejects a root directory that does not end within the first 16 KiB', () => {
    const bytes = withHeader({ rootDirectoryOffset: 16000, rootDirectoryLength: 1000 });
    expect(reasonOf(bytes, archive.length)).toBe('root-outside-16k');
    expect(reasonOf(withHeader({ rootDirectoryLength: 16384 - 126 }), archive.length)).toBe(
      'root-outside-16k',
    );
    expect(
      reasonOf(withHeader({ rootDirectoryLength: 16384 - 127 }), archive.length),
    ).toBeUndefined();
  });

  it('rejects a head shorter than the header', () => {
    expect(reasonOf(head.subarray(0, 126), archive.length)).toBe('truncated');
    expect(reasonOf(new Uint8Array(0), archive.length)).toBe('truncated');
    expect(reasonOf(head.subarray(0, 100), 100)).toBe('truncated');
  });

  it('rejects inconsistent sizes, sections over the header, empty roots and bad geography', () => {
    expect(reasonOf(head, 100)).toBe('bad-object-size');
    expect(reasonOf(head, Number.NaN)).toBe('bad-object-size');
    expect(reasonOf(withHeader({ jsonMetadataOffset: 100 }), archive.length)).toBe(
      'section-overlaps-header',
    );
    expect(reasonOf(withHeader({ rootDirectoryLength: 0 }), archive.length)).toBe('empty-root');
    expect(reasonOf(withHeader({ minZoom: 5, maxZoom: 4 }), archive.length)).toBe('bad-zoom');
    expect(reasonOf(withHeader({ minLat: -91 }), archive.length)).toBe('bad-bounds');
    expect(reasonOf(withHeader({ minLon: -60 }), archive.length)).toBe('bad-bounds');
    expect(reasonOf(withHeader({ centerLon: 181 }), archive.length)).toBe('bad-center');
  });

  it('never throws, even on a 64-bit offset beyond 2^53', () => {
    const bytes = Buffer.from(head);
    bytes.writeUInt32LE(0xffffffff, 56 + 4); // tile data offset high word
    expect(reasonOf(bytes, archive.length)).toBe('section-outside-object');
  });
});
