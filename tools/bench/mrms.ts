/**
 * The `mrms` scenario: converting the real NOAA sample against GDAL in the same run
 * (`mrms-conversion.ts`) and MRMS publish-to-visible in production mode (`mrms-publish.ts`),
 * with its targets: CPU and wall at most half of GDAL's, peak RSS at most 600 MB, p95 of
 * publish-to-visible at most 10 s; the typed conversion (with the frame's PrecipFlag) at most
 * a quarter of GDAL's untyped CPU and wall, its archive at most 25 % larger than the untyped.
 */
import os from 'node:os';
import path from 'node:path';
import { mrmsSample, REFLECTIVITY_SAMPLE } from '../../test/fixtures/mrms-sample';
import { compareWithGdal, type ConversionComparison } from './mrms-conversion';
import { measureMrmsPublishVisible, type MrmsPublishVisible } from './mrms-publish';
import { log } from './runner';
import type { TargetResult } from './results';

export interface MrmsBenchResult {
  readonly measuredAt: string;
  readonly command: string;
  readonly code: string;
  /** Load average (1, 5, 15 min) when the scenario started: other work on the machine. */
  readonly loadAverage: string;
  readonly conversion: ConversionComparison;
  readonly publishVisible: MrmsPublishVisible;
}

/** Runs the scenario in `runDir`: `runs` conversions each way, `uploads` publish samples. */
export async function runMrmsScenario(options: {
  readonly runDir: string;
  readonly runs: number;
  readonly uploads: number;
  readonly command: string;
  readonly code: string;
}): Promise<MrmsBenchResult> {
  const loadAverage = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const measuredAt = new Date().toISOString();
  const sample = mrmsSample(REFLECTIVITY_SAMPLE);
  log(
    `mrms: converting ${REFLECTIVITY_SAMPLE} ${options.runs} times each way (load ${loadAverage})`,
  );
  const conversion = await compareWithGdal(sample, path.join(options.runDir, 'mrms'), options.runs);
  log(
    `mrms: ours ${conversion.ours.wallS} s wall, ${conversion.ours.cpuS} CPU-s, ${conversion.ours.peakRssMiB} MiB; ` +
      `GDAL ${conversion.gdal.wallS} s, ${conversion.gdal.cpuS} CPU-s, ${conversion.gdal.peakRssMiB} MiB; ` +
      `ratios CPU ${conversion.cpuRatio}, wall ${conversion.wallRatio}; ` +
      `typed ${conversion.typed.wallS} s wall, ${conversion.typed.cpuS} CPU-s, ratios CPU ${conversion.typedCpuRatio}, ` +
      `wall ${conversion.typedWallRatio}, size ${conversion.typedSizeRatio}`,
  );
  const publishVisible = await measureMrmsPublishVisible(
    path.join(options.runDir, 'mrms-publish'),
    options.uploads,
  );
  log(
    `mrms publish-to-visible: p50 ${publishVisible.p50Ms} ms, p95 ${publishVisible.p95Ms} ms, max ${publishVisible.maxMs} ms, missed ${publishVisible.missed}`,
  );
  return {
    measuredAt,
    command: options.command,
    code: options.code,
    loadAverage,
    conversion,
    publishVisible,
  };
}

/** The scenario's targets, as ratios and limits. */
export function mrmsTargets(m: MrmsBenchResult): TargetResult[] {
  const c = m.conversion;
  const p = m.publishVisible;
  const rssMb = (c.ours.peakRssMiB * 1024 * 1024) / 1e6;
  return [
    {
      name: 'MRMS conversion CPU vs GDAL',
      requirement: 'ours / GDAL CPU seconds <= 0.5',
      measured: `${c.ours.cpuS} vs ${c.gdal.cpuS} CPU-s (median of ${c.runs})`,
      value: c.cpuRatio,
      limit: 0.5,
      met: c.cpuRatio <= 0.5,
    },
    {
      name: 'MRMS conversion wall time vs GDAL',
      requirement: 'ours / GDAL wall seconds <= 0.5',
      measured: `${c.ours.wallS} vs ${c.gdal.wallS} s (median of ${c.runs})`,
      value: c.wallRatio,
      limit: 0.5,
      met: c.wallRatio <= 0.5,
    },
    {
      name: 'MRMS conversion peak RSS',
      requirement: 'peak RSS of the conversion process <= 600 MB',
      measured: `${c.ours.peakRssMiB} MiB (${rssMb.toFixed(0)} MB); GDAL's pipeline ${c.gdal.peakRssMiB} MiB`,
      value: rssMb,
      limit: 600,
      met: rssMb <= 600,
    },
    {
      name: 'MRMS typed conversion CPU vs GDAL untyped',
      requirement: 'ours typed / GDAL untyped CPU seconds <= 0.25',
      measured: `${c.typed.cpuS} vs ${c.gdal.cpuS} CPU-s (median of ${c.runs})`,
      value: c.typedCpuRatio,
      limit: 0.25,
      met: c.typedCpuRatio <= 0.25,
    },
    {
      name: 'MRMS typed conversion wall time vs GDAL untyped',
      requirement: 'ours typed / GDAL untyped wall seconds <= 0.25',
      measured: `${c.typed.wallS} vs ${c.gdal.wallS} s (median of ${c.runs})`,
      value: c.typedWallRatio,
      limit: 0.25,
      met: c.typedWallRatio <= 0.25,
    },
    {
      name: 'MRMS typed archive size',
      requirement: 'typed / untyped archive bytes of the sample <= 1.25',
      measured: `${c.typed.bytes} vs ${c.ours.bytes} bytes`,
      value: c.typedSizeRatio,
      limit: 1.25,
      met: c.typedSizeRatio <= 1.25,
    },
    {
      name: 'MRMS publish-to-visible',
      requirement: 'p95 <= 10 s from a new file in the source bucket to a replica listing it',
      measured: `p95 ${p.p95Ms} ms, p50 ${p.p50Ms} ms, max ${p.maxMs} ms over ${p.uploads - p.missed} files (${p.missed} missed)`,
      value: p.p95Ms,
      limit: 10_000,
      met: p.missed === 0 && p.p95Ms <= 10_000,
    },
  ];
}
