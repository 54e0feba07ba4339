/**
 * The banner's line about the radar an embedded service publishes, so the person at the
 * terminal knows whether the storms on the map are simulated or NOAA's, and where the MRMS
 * follower reads from.
 */
import type { Config, MrmsSource } from '../config';

/** Where an MRMS source reads, as a person would write it in `MRMS_SOURCE`. */
export function describeMrmsSource(source: MrmsSource): string {
  switch (source.kind) {
    case 's3':
      return `s3://${source.bucket}/${source.prefix} at ${source.endpoint}`;
    case 'http':
      return source.url;
    case 'dir':
      return source.dir;
  }
}

/** One banner line: what the in-process producer publishes, if any. */
export function radarSourceLine(
  config: Pick<Config, 'simulate' | 'radarSource' | 'mrms' | 'archives'>,
): string {
  const where = config.archives.kind === 'fs' ? config.archives.dir : 'the archive bucket';
  if (!config.simulate)
    return `  Radar:   what is published in ${where} (no producer in this process)`;
  if (config.radarSource === 'mrms')
    return [
      `  Radar:   live NOAA MRMS radar (RADAR_SOURCE=mrms) from ${describeMrmsSource(config.mrms.source)}`,
      `           into ${where}; frames appear once the source answers`,
    ].join('\n');
  return `  Radar:   simulated storms, not real weather (RADAR_SOURCE=mrms for live NOAA MRMS radar)`;
}
