/**
 * `node tools/build-and-run.mjs tools/bench/scheme-typed.ts [rounds]`: the cost of serving a
 * tile in a colour scheme, on a typed archive against an untyped one. Both archives are made
 * in-process from the real reflectivity sample (typed: with the real PrecipFlag sample re-timed
 * to its cycle, as `test/fixtures/mrms-frames.ts` does), zooms 0-6; every stored tile of zooms
 * 5 and 6 (the `tile` scenario's zooms) is recoloured in the `cividis` scheme by the rewrite
 * the tile route uses, rounds alternating untyped and typed. Prints the median µs per tile of
 * each, and the tiles' sizes and bit depths. The rewrite is the only work a scheme tile adds to
 * a plain one (same route, same read), so this is the part of the `scheme tile` target the
 * type changes.
 */
import { PMTiles } from 'pmtiles';
import { convertMrmsFile } from '../../src/sources/mrms/mrms-frame';
import { createTileSchemes } from '../../src/tiles/tile-schemes';
import { createBufferSource } from '../../test/fixtures/buffer-source';
import { SAMPLE_TIME_MS, sampleFlagAt, sampleFrameAt } from '../../test/fixtures/mrms-frames';

async function tilesOf(archive: Buffer): Promise<Buffer[]> {
  const reader = new PMTiles(createBufferSource(archive));
  const out: Buffer[] = [];
  for (const z of [5, 6])
    for (let x = 0; x < 2 ** z; x++)
      for (let y = 0; y < 2 ** z; y++) {
        const tile = await reader.getZxy(z, x, y);
        if (tile) out.push(Buffer.from(tile.data));
      }
  return out;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

async function main() {
  const rounds = Number(process.argv[2] ?? 6);
  const frame = sampleFrameAt();
  const flag = sampleFlagAt(SAMPLE_TIME_MS - 39_000);
  const untyped = await tilesOf(convertMrmsFile(frame, { maxZoom: 6 }));
  const typed = await tilesOf(convertMrmsFile({ ...frame, flag }, { maxZoom: 6 }));
  const scheme = createTileSchemes().get('cividis')!;
  const perTile = (tiles: Buffer[]) => {
    const repeat = Math.max(1, Math.ceil(20_000 / tiles.length));
    const began = process.hrtime.bigint();
    let bytes = 0;
    for (let r = 0; r < repeat; r++) for (const t of tiles) bytes += scheme.recolour(t).length;
    const ns = Number(process.hrtime.bigint() - began);
    if (bytes === 0) throw new Error('nothing recoloured');
    return ns / 1000 / (repeat * tiles.length);
  };
  perTile(untyped); // warm-up of both paths
  perTile(typed);
  const u: number[] = [];
  const t: number[] = [];
  for (let i = 0; i < rounds; i++) {
    u.push(perTile(untyped));
    t.push(perTile(typed));
  }
  const describe = (tiles: Buffer[]) => ({
    tiles: tiles.length,
    bytes: tiles.reduce((s, b) => s + b.length, 0),
    depths: [...new Set(tiles.map((b) => b[24]))].sort(),
  });
  const fmt = (v: number[]) => v.map((x) => x.toFixed(2)).join(', ');
  process.stdout.write(
    JSON.stringify({ untyped: describe(untyped), typed: describe(typed) }) +
      `\nuntyped µs/tile per round: ${fmt(u)} (median ${median(u).toFixed(2)})` +
      `\ntyped   µs/tile per round: ${fmt(t)} (median ${median(t).toFixed(2)})` +
      `\ntyped / untyped: ${(median(t) / median(u)).toFixed(2)}\n`,
  );
}

void main();
