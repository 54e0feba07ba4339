/**
 * Fault matrix, bad uploads (docs/reliability.md): the producer uploads a truncated archive (cut in
 * its tile data), a corrupt one (header bytes overwritten), and valid archives under wrong
 * names, next to one valid archive. Under a map-client load through nginx: the valid one is
 * listed, none of the others is ever listed over several polling periods, and the worker's
 * `radar_ingest_rejected_total` counts each once, by reason.
 */
import { buildArchive } from '../fixtures/archives';
import {
  delay,
  FAULT_REPLICA_ENV,
  indexedTimestamps,
  replicaStatus,
  reportFault,
  sample,
  scrape,
  startFaultStack,
  type FaultStack,
} from '../harness/fault-stack';
import { loadRunning, startFaultLoad } from '../harness/fault-load';
import { isServed, summarizeLoad, type StatusBody } from '../harness/map-client-load';
import { waitFor } from '../harness/wait';
import { recentTimestamps } from '../harness/timestamps';

jest.setTimeout(60_000);

const POLL_MS = Number(FAULT_REPLICA_ENV.RADAR_INGEST_POLL_S) * 1000;
/** Polling periods watched after the rejections were counted. */
const WATCH_PERIODS = 4;

let fault: FaultStack;

beforeAll(async () => {
  fault = await startFaultStack();
});
afterAll(async () => {
  await fault?.stop();
});

it('truncated, corrupt and wrongly named uploads are never listed and are counted by reason', async () => {
  const [truncatedTs, corruptTs, misnamedTs, validTs] = recentTimestamps(4, 10) as [
    string,
    string,
    string,
    string,
  ];
  const whole = buildArchive(truncatedTs);
  const corrupt = Buffer.from(buildArchive(corruptTs));
  corrupt.write('NOTPMTI', 0, 'latin1'); // the 7-byte magic
  const bad = [
    {
      name: `${truncatedTs}.pmtiles`,
      bytes: whole.subarray(0, whole.length >> 1),
      reason: 'section-outside-object',
    },
    { name: `${corruptTs}.pmtiles`, bytes: corrupt, reason: 'bad-magic' },
    { name: `radar-${misnamedTs}.pmtiles`, bytes: buildArchive(misnamedTs), reason: 'bad-name' },
    { name: `${misnamedTs}.pmtiles.part`, bytes: buildArchive(misnamedTs), reason: 'bad-name' },
  ];
  const never = [truncatedTs, corruptTs, misnamedTs];
  const expected: Record<string, number> = {};
  for (const b of bad) expected[b.reason] = (expected[b.reason] ?? 0) + 1;
  const rejected = async () => {
    const text = await scrape(fault.stack.ingest.adminPort);
    return Object.fromEntries(
      Object.keys(expected).map((r) => [
        r,
        sample(text, 'radar_ingest_rejected_total', { reason: r }) ?? 0,
      ]),
    );
  };
  const before = await rejected();

  const statusBodies: StatusBody[] = [];
  const load = startFaultLoad(fault, 40_000, (body) => statusBodies.push(body));
  await loadRunning(load);
  const uploadedAt = Date.now();
  for (const b of bad) await fault.stack.s3.put(b.name, b.bytes);
  await fault.stack.s3.put(`${validTs}.pmtiles`, buildArchive(validTs));

  const countedMs = await waitFor(
    async () => {
      const now = await rejected();
      return Object.keys(expected).every((r) => now[r]! - before[r]! >= expected[r]!);
    },
    10 * POLL_MS,
    'rejections counted',
    50,
  );
  await waitFor(
    async () => (await indexedTimestamps(fault.stack)).includes(validTs),
    10 * POLL_MS,
    'valid archive listed',
    50,
  );

  // Watch several polling periods: nothing bad appears on either replica, counts stay put.
  const watchUntil = Date.now() + WATCH_PERIODS * POLL_MS;
  const seen = new Set<string>();
  while (Date.now() < watchUntil) {
    for (const s of await Promise.all(fault.replicas.map((r) => replicaStatus(r))))
      s.body?.timestamps.forEach((ts) => seen.add(ts));
    await delay(100);
  }
  const after = await rejected();
  const outcomes = await load.stop();
  for (const body of statusBodies) body.timestamps.forEach((ts) => seen.add(ts));
  const index = await indexedTimestamps(fault.stack);
  const delta = Object.fromEntries(Object.keys(expected).map((r) => [r, after[r]! - before[r]!]));

  await reportFault('ingest-bad-uploads', {
    ...summarizeLoad(outcomes),
    uploaded: bad.map((b) => b.name),
    rejectedByReason: delta,
    countedAfterUploadMs: countedMs,
    watchedPollPeriods: WATCH_PERIODS,
    statusBodiesChecked: statusBodies.length,
    badEverListed: never.filter((ts) => seen.has(ts) || index.includes(ts)),
    validListed: index.includes(validTs),
    sinceUploadMs: Date.now() - uploadedAt,
  });

  expect(index).toContain(validTs);
  expect(never.filter((ts) => seen.has(ts) || index.includes(ts))).toEqual([]);
  expect(delta).toEqual(expected);
  expect(statusBodies.length).toBeGreaterThan(10);
  expect(summarizeLoad(outcomes.filter((o) => !isServed(o))).byStatus).toEqual({});
});
