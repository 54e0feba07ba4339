/**
 * The tile locator against the independent `pmtiles` reader: every tile of a sparse archive
 * with leaf directories lands on the same bytes, missing tiles are undefined, and decoded
 * directories are cached per archive version (a hot tile reads only its own bytes).
 */
import { PMTiles } from 'pmtiles';
import type { ArchiveMeta, ArchiveStore, ByteWindow } from '../../../src/domain/ports';
import { zxyToTileId } from '../../../src/pmtiles/tile-id';
import {
  decodeDirectory,
  DirectoryFormatError,
  findTile,
} from '../../../src/pmtiles/directory-reader';
import { serializeDirectory } from '../../../src/pmtiles/directory';
import { createTileLocator } from '../../../src/tiles/tile-locator';
import { parseTileCoordinates } from '../../../src/tiles/tile-coordinates';
import { gunzipSync } from 'node:zlib';
import { archiveOf, pyramid } from '../../fixtures/archives';
import { createBufferSource } from '../../fixtures/buffer-source';

function bufferStore(archive: Buffer) {
  const reads: ByteWindow[] = [];
  const store: ArchiveStore = {
    async openRange(_meta, window) {
      reads.push(window);
      return archive.subarray(window.offset, window.offset + window.length);
    },
    probe: async () => {},
    close: async () => {},
  };
  return { store, reads };
}

const meta = (archive: Buffer, etag = '"v1"'): ArchiveMeta => ({
  timestamp: '202611221400',
  size: archive.length,
  etag,
  lastModified: new Date(0),
});

const tiles = pyramid(7, 24).filter((t) => (t.x * 3 + t.y) % 5 !== 0);
const archive = archiveOf(tiles, 7);

it('finds exactly the tiles getZxy finds, with the same bytes (root and leaf directories)', async () => {
  const reader = new PMTiles(createBufferSource(archive));
  expect((await reader.getHeader()).leafDirectoryLength).toBeGreaterThan(0);
  const { store } = bufferStore(archive);
  const locator = createTileLocator({ store });
  const m = meta(archive);
  for (let z = 0; z <= 7; z++) {
    const step = z < 5 ? 1 : 7;
    for (let x = 0; x < 2 ** z; x += step)
      for (let y = 0; y < 2 ** z; y += step) {
        const expected = await reader.getZxy(z, x, y);
        const window = await locator.locate(m, zxyToTileId(z, x, y));
        if (expected === undefined) expect(window).toBeUndefined();
        else {
          const got = archive.subarray(window!.offset, window!.offset + window!.length);
          expect(got.equals(Buffer.from(expected.data))).toBe(true);
        }
      }
  }
});

it('caches directories per archive version: a hot tile reads only its own bytes', async () => {
  const { store, reads } = bufferStore(archive);
  const locator = createTileLocator({ store });
  const m = meta(archive);
  const id = zxyToTileId(7, 100, 51);
  const first = await locator.locate(m, id);
  expect(reads.length).toBeGreaterThanOrEqual(3); // header, root, leaf
  reads.length = 0;
  expect(await locator.locate(m, id)).toEqual(first);
  expect(reads).toEqual([]);
  // A new version of the same timestamp (another ETag) is read afresh.
  await locator.locate(meta(archive, '"v2"'), id);
  expect(reads.length).toBeGreaterThanOrEqual(3);
});

it('concurrent first requests decode each directory once (single flight)', async () => {
  const { store, reads } = bufferStore(archive);
  const locator = createTileLocator({ store });
  const m = meta(archive);
  await Promise.all(
    Array.from({ length: 20 }, (_, i) => locator.locate(m, zxyToTileId(7, 100 + (i % 3), 51))),
  );
  const offsets = reads.map((r) => r.offset);
  expect(new Set(offsets).size).toBe(offsets.length);
});

it('reads JSON metadata, {} when absent', async () => {
  const withMeta = archiveOf(pyramid(1), 1, { name: 'x', attribution: 'y' });
  expect(await createTileLocator(bufferStore(withMeta)).metadata(meta(withMeta))).toEqual({
    name: 'x',
    attribution: 'y',
  });
});

it('refuses a truncated or lying directory instead of reading garbage', () => {
  const dir = gunzipSync(serializeDirectory([{ tileId: 0, offset: 0, length: 10, runLength: 1 }]));
  expect(decodeDirectory(dir).tileIds.length).toBe(1);
  expect(() => decodeDirectory(dir.subarray(0, dir.length - 1))).toThrow(DirectoryFormatError);
  expect(() => decodeDirectory(Buffer.from([0xff, 0xff, 0x03]))).toThrow(DirectoryFormatError);
});

it('findTile follows runs and leaf pointers like the PMTiles spec', () => {
  const dir = decodeDirectory(
    gunzipSync(
      serializeDirectory([
        { tileId: 5, offset: 0, length: 10, runLength: 3 },
        { tileId: 20, offset: 0, length: 50, runLength: 0 },
      ]),
    ),
  );
  expect(findTile(dir, 4)).toBeUndefined();
  expect(findTile(dir, 7)).toEqual({ offset: 0, length: 10, leaf: false });
  expect(findTile(dir, 8)).toBeUndefined();
  expect(findTile(dir, 25)).toEqual({ offset: 0, length: 50, leaf: true });
});

it.each([
  ['0', '0', '0', { z: 0, x: 0, y: 0 }],
  ['3', '7', '7', { z: 3, x: 7, y: 7 }],
  ['26', '67108863', '0', { z: 26, x: 67108863, y: 0 }],
  ['3', '8', '0', undefined],
  ['27', '0', '0', undefined],
  ['03', '0', '0', undefined],
  ['3', '-1', '0', undefined],
  ['3', '1.0', '0', undefined],
  ['3', '', '0', undefined],
  ['3', '1e0', '0', undefined],
  ['3', ' 1', '0', undefined],
])('parseTileCoordinates(%s, %s, %s)', (z, x, y, expected) => {
  expect(parseTileCoordinates(z, x, y)).toEqual(expected);
});

it('peeks from memory only: nothing before a load, then the same answer as locate, no reads', async () => {
  const { store, reads } = bufferStore(archive);
  const locator = createTileLocator({ store });
  const m = meta(archive);
  const present = tiles[tiles.length - 1]!; // deep enough to sit in a leaf directory
  const presentId = zxyToTileId(present.z, present.x, present.y);
  const absentId = zxyToTileId(7, 0, 0); // (0*3+0)%5 === 0: left out of the archive

  expect(locator.peek(m, presentId)).toBeUndefined();
  const located = await locator.locate(m, presentId);
  expect(located).toBeDefined();
  await locator.locate(m, absentId);
  const readsBefore = reads.length;

  const peeked = locator.peek(m, presentId);
  expect(peeked?.window).toEqual(located);
  expect(peeked?.header).toEqual(await locator.header(m));
  expect(locator.peek(m, absentId)).toEqual({ header: peeked?.header, window: undefined });
  // Another version of the archive (new ETag) is not in memory.
  expect(locator.peek(meta(archive, '"v2"'), presentId)).toBeUndefined();
  expect(reads.length).toBe(readsBefore);
});
