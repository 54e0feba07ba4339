/**
 * Publish-to-visible: archives are uploaded to the bucket one at a time at random intervals
 * (so uploads fall at every phase of the ingest worker's listing period), and one poller per
 * replica reads `/status.json` every 20 ms (conditional GET) until the new timestamp is
 * listed. A sample is the time from the upload's completion (the PUT answered) to the first
 * status of that replica listing it. s3rver has no bucket notifications, so this measures the
 * polling path only (listing every RADAR_INGEST_POLL_S).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from './nearest-rank';
import { createUploader, type Replica, type S3Info } from './service';
import { pollVisibility } from './visibility-poller';
import { createUniformSequence } from '../../src/sim/noise';

export interface PublishVisibleResult {
  readonly uploads: number;
  readonly replicas: number;
  readonly samples: number;
  readonly missed: number;
  readonly pollIntervalS: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly perReplica: Record<string, { p50Ms: number; maxMs: number }>;
  readonly mode: string;
}

export async function measurePublishToVisible(options: {
  s3: S3Info;
  replicas: ReadonlyArray<{ name: string; replica: Replica }>;
  uploads: ReadonlyArray<{ timestamp: string; bytes: Buffer }>;
  pollIntervalS: number;
  seed?: number;
}): Promise<PublishVisibleResult> {
  const random = createUniformSequence(options.seed ?? 7);
  const uploadedAt = new Map<string, number>();
  const samples = new Map<string, number[]>(options.replicas.map((r) => [r.name, []]));
  const seen = new Map<string, Set<string>>(options.replicas.map((r) => [r.name, new Set()]));
  const pending = new Set(options.uploads.map((u) => u.timestamp));
  const pollers = options.replicas.map(({ name, replica }) =>
    pollVisibility(replica.url, uploadedAt, (timestamp, afterMs) => {
      seen.get(name)!.add(timestamp);
      samples.get(name)!.push(afterMs);
    }),
  );

  const uploader = createUploader(options.s3);
  try {
    for (const upload of options.uploads) {
      await uploader.put(upload.timestamp, upload.bytes);
      uploadedAt.set(upload.timestamp, performance.now());
      // Random gaps decorrelate uploads from the listing period.
      await sleep(200 + random() * 1300);
    }
    const deadline = performance.now() + (options.pollIntervalS + 10) * 1000;
    while (performance.now() < deadline) {
      if ([...seen.values()].every((s) => s.size === pending.size)) break;
      await sleep(50);
    }
  } finally {
    uploader.close();
    await Promise.all(pollers.map((poller) => poller.stop()));
  }

  const all = [...samples.values()].flat().sort((a, b) => a - b);
  const expected = options.uploads.length * options.replicas.length;
  const perReplica: PublishVisibleResult['perReplica'] = {};
  for (const [name, list] of samples) {
    const sorted = [...list].sort((a, b) => a - b);
    perReplica[name] = {
      p50Ms: Math.round(percentile(sorted, 50)),
      maxMs: Math.round(sorted.at(-1) ?? NaN),
    };
  }
  return {
    uploads: options.uploads.length,
    replicas: options.replicas.length,
    samples: all.length,
    missed: expected - all.length,
    pollIntervalS: options.pollIntervalS,
    p50Ms: Math.round(percentile(all, 50)),
    p99Ms: Math.round(percentile(all, 99)),
    maxMs: Math.round(all.at(-1) ?? NaN),
    perReplica,
    mode: 'polling (s3rver has no bucket notifications)',
  };
}
