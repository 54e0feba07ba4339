/**
 * Publish-to-visible: archives are uploaded to the bucket one at a time at random intervals
 * (so uploads fall at every phase of the ingest worker's listing period), and one poller per
 * replica reads `/status.json` every 20 ms (conditional GET) until the new timestamp is
 * listed. A sample is the time from the upload's completion (the PUT answered) to the first
 * status of that replica listing it. s3rver has no bucket notifications, so this measures the
 * polling path only (listing every RADAR_INGEST_POLL_S).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { seededRandom } from './archives';
import { httpGet } from './processes';
import { AUTH_HEADERS, createUploader, type Replica, type S3Info } from './service';

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

const POLL_MS = 20;

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export async function measurePublishToVisible(options: {
  s3: S3Info;
  replicas: ReadonlyArray<{ name: string; replica: Replica }>;
  uploads: ReadonlyArray<{ timestamp: string; bytes: Buffer }>;
  pollIntervalS: number;
  seed?: number;
}): Promise<PublishVisibleResult> {
  const random = seededRandom(options.seed ?? 7);
  const uploadedAt = new Map<string, number>();
  const samples = new Map<string, number[]>(options.replicas.map((r) => [r.name, []]));
  const seen = new Map<string, Set<string>>(options.replicas.map((r) => [r.name, new Set()]));
  const pending = new Set(options.uploads.map((u) => u.timestamp));
  let stop = false;

  const pollers = options.replicas.map(async ({ name, replica }) => {
    let etag = '';
    const mine = seen.get(name)!;
    while (!stop) {
      const res = await httpGet(`${replica.url}/status.json`, {
        ...AUTH_HEADERS,
        ...(etag ? { 'if-none-match': etag } : {}),
      }).catch(() => undefined);
      const now = performance.now();
      if (res?.status === 200) {
        etag = String(res.headers.etag ?? '');
        const listed = new Set(
          (JSON.parse(res.body.toString()) as { timestamps: string[] }).timestamps,
        );
        for (const [ts, at] of uploadedAt) {
          if (!mine.has(ts) && listed.has(ts)) {
            mine.add(ts);
            samples.get(name)!.push(now - at);
          }
        }
      }
      await sleep(POLL_MS);
    }
  });

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
    stop = true;
    uploader.close();
    await Promise.all(pollers);
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
