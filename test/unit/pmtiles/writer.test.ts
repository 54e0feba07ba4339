import { Compression, PMTiles, TileType, zxyToTileId as referenceTileId } from 'pmtiles';
import { HEADER_BYTES } from '../../../src/pmtiles/header';
import { type TileInput, type WriteOptions, writePmtiles } from '../../../src/pmtiles/writer';
import { createBufferSource } from '../../fixtures/buffer-source';
import { fullPyramid, uniquePayload } from '../../fixtures/synthetic-tiles';

const conus: Omit<WriteOptions, 'minZoom' | 'maxZoom'> = {
  tileType: 'png',
  bounds: [-127.5, 21.25, -66.5, 50.1234567],
  center: [-97, 38.5, 4],
  metadata: { name: 'radar', attribution: '© test', vector_layers: [], nested: { a: [1, 'ü'] } },
};

/** Expected header counts, computed independently with the pmtiles package's tile ids. */
function expectedCounts(tiles: readonly TileInput[]) {
  const sorted = tiles
    .map((t) => ({ id: referenceTileId(t.z, t.x, t.y), key: Buffer.from(t.data).toString('hex') }))
    .sort((a, b) => a.id - b.id);
  let entries = 0;
  sorted.forEach((t, i) => {
    const prev = sorted[i - 1];
    if (!prev || prev.id + 1 !== t.id || prev.key !== t.key) entries++;
  });
  return {
    numAddressedTiles: tiles.length,
    numTileEntries: entries,
    numTileContents: new Set(sorted.map((t) => t.key)).size,
  };
}

async function expectRoundTrip(
  tiles: readonly TileInput[],
  archive: Buffer,
  options: WriteOptions,
) {
  const reader = new PMTiles(createBufferSource(archive));
  const header = await reader.getHeader();
  expect(header).toMatchObject({
    specVersion: 3,
    minZoom: options.minZoom,
    maxZoom: options.maxZoom,
    minLon: options.bounds[0],
    minLat: options.bounds[1],
    maxLon: options.bounds[2],
    maxLat: options.bounds[3],
    centerLon: options.center[0],
    centerLat: options.center[1],
    centerZoom: options.center[2],
    clustered: true,
    internalCompression: Compression.Gzip,
    tileCompression: Compression.None,
    tileType: TileType.Png,
    rootDirectoryOffset: HEADER_BYTES,
    tileDataLength: archive.length - header.tileDataOffset,
    ...expectedCounts(tiles),
  });
  expect(header.rootDirectoryOffset + header.rootDirectoryLength).toBeLessThanOrEqual(16384);
  expect(await reader.getMetadata()).toEqual(options.metadata);
  for (const t of tiles) {
    const got = await reader.getZxy(t.z, t.x, t.y);
    if (!got || Buffer.compare(Buffer.from(got.data), Buffer.from(t.data)) !== 0) {
      throw new Error(`tile ${t.z}/${t.x}/${t.y} did not round-trip`);
    }
  }
  return { reader, header };
}

describe('writePmtiles', () => {
  it('round-trips a small archive with deduplicated and run-length encoded tiles', async () => {
    const blank = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0]);
    const echo = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const tiles: TileInput[] = [
      { z: 0, x: 0, y: 0, data: uniquePayload(0, 0, 0) },
      { z: 1, x: 0, y: 0, data: echo },
      { z: 1, x: 1, y: 1, data: echo }, // same content, not consecutive: dedup by offset
      { z: 1, x: 0, y: 1, data: uniquePayload(1, 0, 1) },
    ];
    // All of z2 (ids 5..20) and z3 0/0 (id 21) blank: one entry with run length 17.
    for (let x = 0; x < 4; x++) for (let y = 0; y < 4; y++) tiles.push({ z: 2, x, y, data: blank });
    tiles.push({ z: 3, x: 0, y: 0, data: new Uint8Array(blank) }); // equal bytes, other buffer
    tiles.push({ z: 3, x: 5, y: 6, data: echo });
    tiles.push({ z: 3, x: 7, y: 7, data: uniquePayload(3, 7, 7) });
    const options: WriteOptions = { ...conus, minZoom: 0, maxZoom: 3 };
    // Shuffled input order must not matter.
    const archive = writePmtiles([...tiles].reverse(), options);

    const { reader, header } = await expectRoundTrip(tiles, archive, options);
    expect(header).toMatchObject({ numAddressedTiles: 23, numTileEntries: 7, numTileContents: 5 });
    expect(header.leafDirectoryLength).toBe(0);
    const distinct = [
      blank,
      echo,
      uniquePayload(0, 0, 0),
      uniquePayload(1, 0, 1),
      uniquePayload(3, 7, 7),
    ];
    expect(header.tileDataLength).toBe(distinct.reduce((sum, d) => sum + d.length, 0));
    expect(await reader.getZxy(1, 1, 0)).toBeUndefined();
    expect(await reader.getZxy(3, 0, 1)).toBeUndefined();
    expect(await reader.getZxy(3, 7, 6)).toBeUndefined();
    expect(await reader.getZxy(4, 0, 0)).toBeUndefined();
  });

  it('is deterministic', () => {
    const tiles = fullPyramid(0, 3);
    const options: WriteOptions = { ...conus, minZoom: 0, maxZoom: 3 };
    expect(writePmtiles(tiles, options).equals(writePmtiles(tiles, options))).toBe(true);
  });

  it('builds leaf directories for a large archive, keeping the root in the first 16 KiB', async () => {
    // z0..7 complete (21845 tiles) plus the western quarter of z8 (16384): 38229 distinct tiles.
    const tiles = fullPyramid(0, 7);
    for (let x = 0; x < 64; x++) {
      for (let y = 0; y < 256; y++) tiles.push({ z: 8, x, y, data: uniquePayload(8, x, y) });
    }
    const options: WriteOptions = { ...conus, minZoom: 0, maxZoom: 8 };
    const archive = writePmtiles(tiles, options);

    const { reader, header } = await expectRoundTrip(tiles, archive, options);
    expect(header.numTileEntries).toBe(tiles.length);
    expect(header.numTileContents).toBe(tiles.length);
    expect(header.leafDirectoryLength).toBeGreaterThan(0);
    expect(header.leafDirectoryOffset).toBe(header.jsonMetadataOffset + header.jsonMetadataLength);
    expect(header.tileDataOffset).toBe(
      header.leafDirectoryOffset + (header.leafDirectoryLength ?? Number.NaN),
    );
    expect(await reader.getZxy(8, 64, 0)).toBeUndefined();
    expect(await reader.getZxy(8, 255, 255)).toBeUndefined();
  });

  it('rejects input no reader could use', () => {
    const options: WriteOptions = { ...conus, minZoom: 0, maxZoom: 2 };
    const one = (z: number, x: number, y: number): TileInput => ({
      z,
      x,
      y,
      data: uniquePayload(z, x, y),
    });
    expect(() => writePmtiles([], options)).toThrow(/at least one tile/);
    expect(() => writePmtiles([one(1, 0, 0), one(1, 0, 0)], options)).toThrow(/duplicate/);
    expect(() => writePmtiles([one(3, 0, 0)], options)).toThrow(/zoom range/);
    expect(() => writePmtiles([{ z: 1, x: 0, y: 0, data: new Uint8Array() }], options)).toThrow(
      /no data/,
    );
    expect(() => writePmtiles([one(1, 0, 0)], { ...options, minZoom: 3 })).toThrow(/zoom range/);
    expect(() => writePmtiles([one(1, 0, 0)], { ...options, bounds: [-200, 0, 0, 10] })).toThrow(
      /bounds/,
    );
    expect(() => writePmtiles([one(1, 0, 0)], { ...options, bounds: [10, 0, 0, 10] })).toThrow(
      /bounds/,
    );
    expect(() => writePmtiles([one(1, 0, 0)], { ...options, center: [0, 95, 1] })).toThrow(
      /center/,
    );
    expect(() =>
      writePmtiles([one(1, 0, 0)], { ...options, tileType: 'gif' as unknown as 'png' }),
    ).toThrow(/tile type/);
  });
});
