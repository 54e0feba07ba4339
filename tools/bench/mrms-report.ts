/** The `mrms` scenario's section of BENCHMARKS.md. */
import type { MrmsBenchResult } from './mrms';
import { f, mdTable } from './markdown';

/** The `mrms` scenario: conversion against GDAL, and MRMS publish-to-visible. */
export function mrmsSection(m: MrmsBenchResult): string[] {
  const c = m.conversion;
  const p = m.publishVisible;
  const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;
  const row = (what: string, x: { wallS: number; cpuS: number; peakRssMiB: number }) => [
    what,
    f(x.wallS),
    f(x.cpuS),
    f(x.peakRssMiB, 0),
  ];
  return [
    '## MRMS conversion against GDAL',
    '',
    `Measured ${m.measuredAt} with \`${m.command}\` (${m.code}), load average at its start ${m.loadAverage} on the machine above. ` +
      `The real NOAA file \`${c.file}\` (7000 x 3500 points, gzip-compressed GRIB2 with PNG packing) to map tiles for zooms 0-7, ${c.runs} runs each way, alternating, medians shown. ` +
      "Ours: `node dist/bin/mrms.js --file <sample> --out <dir>` (one process: gunzip, GRIB2 decode, render, PMTiles, atomic write); ours typed: the same with `--type-file <flag>`, the PrecipFlag sample re-timed onto the frame's 2-minute cycle (both files decoded, every pixel coloured by its type: snow, rain or hail). " +
      `GDAL (${c.gdalVersion}, Debian): \`gzip -dc\`, then \`gdaldem color-relief -alpha\` with the same palette written as steps (each colour held from its dBZ to just below the next step's; no coverage and no echo transparent), then \`gdal2tiles.py --xyz -z 0-7 -r near --processes=2\`. ` +
      "Wall and CPU seconds (user + system, children included) from GNU time; peak RSS of the whole process tree (every live process summed, sampled every 20 ms, or the largest single process if higher). GDAL writes every tile of the raster's extent as a PNG file; ours stores only tiles with echo, in one archive.",
    '',
    mdTable(
      ['conversion', 'wall s', 'CPU s', 'peak RSS MiB', 'output'],
      [
        [
          ...row('ours (mrms --file)', c.ours),
          `${c.ours.tiles} tiles, ${kib(c.ours.bytes)} archive`,
        ],
        [
          ...row('ours typed (mrms --file --type-file)', c.typed),
          `${c.typed.tiles} tiles, ${kib(c.typed.bytes)} archive`,
        ],
        [
          ...row('GDAL, whole pipeline', c.gdal),
          `${c.gdal.tiles} tiles, ${kib(c.gdal.bytes)} of PNG files`,
        ],
        [...row('GDAL: gzip -dc', c.gdal.steps.gunzip), ''],
        [...row('GDAL: gdaldem color-relief', c.gdal.steps.gdaldem), ''],
        [...row('GDAL: gdal2tiles.py', c.gdal.steps.gdal2tiles), ''],
      ],
    ),
    '',
    `Ratios ours / GDAL: CPU ${f(c.cpuRatio, 3)}, wall ${f(c.wallRatio, 3)} (targets: at most 0.5 each); our peak RSS ${f(c.ours.peakRssMiB, 0)} MiB (target: at most 600 MB). ` +
      `Typed / GDAL's untyped pipeline: CPU ${f(c.typedCpuRatio, 3)}, wall ${f(c.typedWallRatio, 3)} (targets: at most 0.25 each); typed / untyped archive bytes ${f(c.typedSizeRatio, 3)} (target: at most 1.25).`,
    '',
    `MRMS publish-to-visible (production mode on loopback: redis-server, s3rver holding a source bucket laid out like NOAA's \`noaa-mrms-pds\` and the archive bucket, the ingest worker, one replica and the MRMS producer, all built processes with their production defaults: producer polling every ${p.mrmsPollS} s, ingest listing every ${p.ingestPollS} s, no bucket notifications on s3rver): ` +
      `${p.uploads} new files uploaded one at a time at random intervals, each timed from its upload to the first \`/status.json\` of the replica listing its frame (polled every 20 ms): ` +
      `p50 ${p.p50Ms} ms, p95 ${p.p95Ms} ms, max ${p.maxMs} ms, ${p.missed} never visible (target: p95 at most 10 s). Samples: ${p.samplesMs.join(', ')} ms.`,
    '',
  ];
}
