import { gunzipSync } from 'node:zlib';
import {
  buildDirectories,
  type DirectoryEntry,
  serializeDirectory,
} from '../../../src/pmtiles/directory';

describe('serializeDirectory', () => {
  it('writes count, id deltas, run lengths, lengths, then zeroed offsets, gzipped', () => {
    const entries: DirectoryEntry[] = [
      { tileId: 0, offset: 0, length: 10, runLength: 1 },
      { tileId: 1, offset: 10, length: 5, runLength: 1 }, // contiguous -> 0
      { tileId: 5, offset: 0, length: 10, runLength: 2 }, // dedup back-reference -> 0 + 1
      { tileId: 300, offset: 200, length: 130, runLength: 1 }, // multi-byte varints
    ];
    const raw = gunzipSync(serializeDirectory(entries));
    const count = [4];
    const idDeltas = [0, 1, 4, 0xa7, 0x02]; // 295 = 39 + 2 * 128
    const runLengths = [1, 1, 2, 1];
    const lengths = [10, 5, 10, 0x82, 0x01]; // 130
    const offsets = [1, 0, 1, 0xc9, 0x01]; // 0+1, contiguous, 0+1, 200+1
    expect([...raw]).toEqual([...count, ...idDeltas, ...runLengths, ...lengths, ...offsets]);
  });

  it('encodes numbers beyond 32 bits', () => {
    const raw = gunzipSync(
      serializeDirectory([{ tileId: 2 ** 40, offset: 2 ** 35, length: 1, runLength: 1 }]),
    );
    const tileId = [0x80, 0x80, 0x80, 0x80, 0x80, 0x20]; // 2^40 = 2^35 * 32
    const offset = [0x81, 0x80, 0x80, 0x80, 0x80, 0x01]; // 2^35 + 1
    expect([...raw]).toEqual([1, ...tileId, 1, 1, ...offset]);
  });

  it('rejects empty and unsorted directories', () => {
    expect(() => serializeDirectory([])).toThrow(RangeError);
    expect(() =>
      serializeDirectory([
        { tileId: 2, offset: 0, length: 1, runLength: 1 },
        { tileId: 1, offset: 1, length: 1, runLength: 1 },
      ]),
    ).toThrow(RangeError);
  });
});

describe('buildDirectories', () => {
  const entries: DirectoryEntry[] = Array.from({ length: 20000 }, (_, i) => ({
    tileId: i * 3,
    offset: i * 7,
    length: 7,
    runLength: 1 + (i % 2),
  }));

  it('keeps a small directory in the root', () => {
    const layout = buildDirectories(entries.slice(0, 100));
    expect(layout.leafCount).toBe(0);
    expect(layout.leaves).toHaveLength(0);
  });

  it('splits into leaf pointers until the root fits the limit', () => {
    const layout = buildDirectories(entries, 60);
    expect(layout.root.length).toBeLessThanOrEqual(60);
    expect(layout.leafCount).toBeGreaterThan(1);
    const root = decode(layout.root);
    expect(root).toHaveLength(layout.leafCount);
    expect(root.every((e) => e.runLength === 0)).toBe(true);
    // Leaves are back to back, and together hold every entry in order.
    const all: DirectoryEntry[] = [];
    for (const pointer of root) {
      const leaf = decode(layout.leaves.subarray(pointer.offset, pointer.offset + pointer.length));
      expect(leaf[0]!.tileId).toBe(pointer.tileId);
      all.push(...leaf);
    }
    expect(root.at(-1)!.offset + root.at(-1)!.length).toBe(layout.leaves.length);
    expect(all).toEqual(entries);
  });
});

/** Minimal decoder written from the PMTiles spec text, to look inside what the writer produced. */
function decode(gz: Buffer): DirectoryEntry[] {
  const buf = gunzipSync(gz);
  let pos = 0;
  const next = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const b = buf[pos++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 0x80;
    }
  };
  const n = next();
  const out: DirectoryEntry[] = [];
  let id = 0;
  for (let i = 0; i < n; i++) {
    id += next();
    out.push({ tileId: id, offset: 0, length: 0, runLength: 0 });
  }
  for (const e of out) e.runLength = next();
  for (const e of out) e.length = next();
  out.forEach((e, i) => {
    const v = next();
    const prev = out[i - 1];
    e.offset = v === 0 && prev ? prev.offset + prev.length : v - 1;
  });
  return out;
}
