/**
 * MRMS publish-to-visible, in production mode on loopback: redis-server, s3rver (holding both
 * a source bucket laid out like NOAA's `noaa-mrms-pds` and the archive bucket), the ingest
 * worker, one API replica and the MRMS producer, each a built process with its production
 * defaults (producer polling every `MRMS_POLL_S` = 2 s, ingest listing every 5 s; s3rver has no
 * bucket notifications). New MRMS files are uploaded to the source bucket one at a time at
 * random intervals, independent of when earlier ones became visible, each just after the
 * PrecipFlag file of its cycle in the product folder beside it (the producer waits for a frame's
 * flag, up to `MRMS_TYPE_WAIT_S`, before it publishes); a sample is the time from the
 * reflectivity upload's completion to the first `/status.json` of the replica that lists its
 * frame (polled every 20 ms).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createS3Client } from '../../src/adapters/s3/client';
import { loadConfig } from '../../src/config';
import { formatTimestamp } from '../../src/domain/timestamps';
import { parseMrmsFileName } from '../../src/sources/mrms/mrms-file-name';
import {
  FLAG_PRODUCT_LEVEL,
  noaaKey,
  sampleFlagAt,
  sampleFrameAt,
} from '../../test/fixtures/mrms-frames';
import { freePort } from '../stack/free-port';
import { percentile } from './nearest-rank';
import { httpGet, startNode, waitUntil, type BenchProcess } from './processes';
import { log } from './runner';
import { pollVisibility } from './visibility-poller';
import { productionEnv, startIngest, startRedisWithKeys, startReplica, startS3 } from './service';
import { createUniformSequence } from '../../src/sim/noise';

const SOURCE_BUCKET = 'noaa-mrms-pds';
const PREFIX = 'CONUS/ReflectivityAtLowestAltitude_00.50/';
const FLAG_PREFIX = `CONUS/${FLAG_PRODUCT_LEVEL}/`;

export interface MrmsPublishVisible {
  readonly uploads: number;
  readonly missed: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly maxMs: number;
  readonly samplesMs: readonly number[];
  readonly mrmsPollS: number;
  readonly ingestPollS: number;
}

/** Starts the stack under `runDir`, uploads `uploads` files, stops everything. */
export async function measureMrmsPublishVisible(
  runDir: string,
  uploads: number,
): Promise<MrmsPublishVisible> {
  const logDir = path.join(runDir, 'logs');
  await fs.mkdir(logDir, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const random = createUniformSequence(11);
  const defaults = loadConfig({});
  // Valid times in the past hour, 39 s into even-minute cycles 2 minutes apart, as NOAA's feed
  // has them; the first one is there before the producer starts (its backfill), the others
  // arrive during the measurement.
  const base = Math.floor(Date.now() / 120_000) * 120_000 - 50 * 60_000 + 39_000;
  const frames = Array.from({ length: uploads + 1 }, (_, i) => sampleFrameAt(base + i * 120_000));
  try {
    const redis = await startRedisWithKeys();
    stops.push(() => redis.stop());
    await fs.mkdir(path.join(runDir, 's3'));
    const s3server = await startS3(path.join(runDir, 's3'), logDir);
    stops.push(() => s3server.proc.stop());
    const { s3 } = s3server;
    const client = createS3Client({ ...s3, region: 'us-east-1' }, { timeoutMs: 10_000 });
    stops.push(async () => client.close());
    await client.minio.makeBucket(SOURCE_BUCKET, 'us-east-1');
    // The flag of the frame's 2-minute cycle first, then the frame.
    const upload = async (frame: { name: string; bytes: Buffer }) => {
      const cycleMs = Math.floor(parseMrmsFileName(frame.name)!.timeMs / 120_000) * 120_000;
      const flag = sampleFlagAt(cycleMs);
      await client.minio.putObject(SOURCE_BUCKET, noaaKey(FLAG_PREFIX, flag.name), flag.bytes);
      await client.minio.putObject(SOURCE_BUCKET, noaaKey(PREFIX, frame.name), frame.bytes);
    };
    await upload(frames[0]!);

    const ingest = await startIngest(redis.url, s3, logDir);
    stops.push(() => ingest.stop());
    const adminPort = await freePort();
    const producer: BenchProcess = startNode(
      'mrms',
      path.resolve(__dirname, '../../dist/bin/mrms.js'),
      {
        ...productionEnv(redis.url, s3),
        ADMIN_PORT: String(adminPort),
        MRMS_S3_ENDPOINT: s3.endpoint,
      },
      logDir,
    );
    stops.push(() => producer.stop());
    await waitUntil(
      'the producer ready',
      async () => (await httpGet(`http://127.0.0.1:${adminPort}/readyz`)).status === 200,
      { proc: producer },
    );
    const replica = await startReplica('api-1', {
      redisUrl: redis.url,
      s3,
      logDir,
      expectTimestamps: 1,
    });
    stops.push(() => replica.proc.stop());
    log(`mrms publish-to-visible: stack up, uploading ${uploads} files at random intervals`);

    // One poller throughout; uploads on their own random schedule (3-9 s apart, more than the
    // 5 s ingest period, so they fall at every phase of both poll loops), never waiting for
    // the previous file to become visible.
    const uploadedAt = new Map<string, number>();
    const seenAfter = new Map<string, number>();
    const poller = pollVisibility(replica.url, uploadedAt, (timestamp, afterMs) => {
      seenAfter.set(timestamp, Math.round(afterMs));
      log(`mrms publish-to-visible: ${timestamp} ${Math.round(afterMs)} ms`);
    });
    try {
      for (const frame of frames.slice(1)) {
        await sleep(3000 + random() * 6000);
        await upload(frame);
        uploadedAt.set(formatTimestamp(parseMrmsFileName(frame.name)!.timeMs), performance.now());
      }
      const deadline = performance.now() + 60_000;
      while (seenAfter.size < uploadedAt.size && performance.now() < deadline) await sleep(100);
    } finally {
      await poller.stop();
    }
    const samples = [...uploadedAt.keys()].flatMap((ts) => {
      const ms = seenAfter.get(ts);
      return ms === undefined ? [] : [ms];
    });
    const missed = uploadedAt.size - samples.length;
    const sorted = [...samples].sort((a, b) => a - b);
    return {
      uploads,
      missed,
      p50Ms: percentile(sorted, 50),
      p95Ms: percentile(sorted, 95),
      maxMs: sorted.at(-1) ?? NaN,
      samplesMs: samples,
      // The production defaults the processes ran with.
      mrmsPollS: defaults.mrms.pollS,
      ingestPollS: defaults.ingestPollS,
    };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}
