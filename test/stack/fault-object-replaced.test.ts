/**
 * Fault matrix, one object replaced under a published timestamp (store side): the producer
 * overwrites a published archive with other bytes (another archive: different ETag and size).
 * Under a map-client load through nginx and a stream of uncached ranges of the replaced
 * timestamp on both replicas, far past the breaker threshold:
 *
 * - phase 1, ingest not running (so the catalog keeps describing the old version for the whole
 *   phase, whatever the timing): every probe of the replaced timestamp answers 503 with
 *   `Retry-After` and the error record, each mismatch is counted by reason (not as a store
 *   error), and the breaker stays closed on both replicas;
 * - phase 2, an ingest worker starts, re-validates the object and republishes it: both replicas
 *   serve the new version under its new ETag;
 * - throughout, every other archive keeps being served and no answer carries bytes of one
 *   version under the other's ETag.
 */
// The store's breaker defaults: the replicas here run with them.
import { DEFAULT_BREAKER_THRESHOLD as BREAKER_THRESHOLD } from '../../src/adapters/s3/archive-store';
import { buildArchive } from '../fixtures/archives';
import { edgeRequest } from '../harness/edge-stack';
import {
  faultAuth,
  metric,
  reportFault,
  spawnIngest,
  startFaultStack,
  type FaultStack,
  type SpawnedIngest,
} from '../harness/fault-stack';
import { loadRunning, startFaultLoad } from '../harness/fault-load';
import { summarizeLoad } from '../harness/map-client-load';

jest.setTimeout(150_000);

/** Past the warmed header block (the first 64 KiB), so every read goes to the store. */
const PROBE_RANGES = ['bytes=70000-70999', 'bytes=90000-90499', 'bytes=120000-121023'];
/** Phase 1: probes while the catalog still describes the old version. */
const MISMATCH_MS = 8_000;
/** Phase 2: longest wait for ingest to republish and both replicas to serve the new version. */
const REPUBLISH_BOUND_MS = 30_000;

let fault: FaultStack;

let ingest: SpawnedIngest | undefined;

beforeAll(async () => {
  fault = await startFaultStack({ ingest: 'none' });
});
afterAll(async () => {
  await ingest?.process.stop();
  await fault?.stop();
});

interface Probe {
  readonly phase: 'mismatch' | 'republish';
  readonly replica: number;
  readonly at: number;
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly errorRecord: boolean;
  /** For 200/206: which version the bytes belong to, judged by the response ETag. */
  readonly bytes: 'old' | 'new' | 'wrong' | undefined;
}

it('an object replaced under a published timestamp never opens the breaker or serves mixed bytes', async () => {
  const replacedTs = fault.frames[2]!;
  const key = `${replacedTs}.pmtiles`;
  const original = buildArchive(replacedTs, 4); // as the fault stack seeded it
  const replacement = buildArchive(replacedTs, 5); // a larger pyramid: other size and ETag
  const oldEtag = (
    await edgeRequest(fault.replicas[0]!.url, `/tiles/${replacedTs}.pmtiles`, {
      method: 'HEAD',
      headers: faultAuth(),
    })
  ).headers.etag;
  expect(oldEtag).toBeDefined();

  const objectErrors = async () => {
    let sum = 0;
    for (const r of fault.replicas)
      for (const reason of ['etag', 'size', 'range'])
        sum += await metric(r.adminPort, 'radar_object_store_object_errors_total', { reason });
    return sum;
  };
  const storeUnavailable = async () => {
    let sum = 0;
    for (const r of fault.replicas)
      sum += await metric(r.adminPort, 'radar_object_store_errors_total', {
        operation: 'get_range',
        kind: 'unavailable',
      });
    return sum;
  };
  const unavailableBefore = await storeUnavailable();

  // The load starts after the replacement: no block of the old version past the warmed header
  // block can be in a replica's cache, so every probe below reaches the store.
  const replacedAt = Date.now();
  await fault.stack.s3.put(key, replacement);
  const load = startFaultLoad(fault, MISMATCH_MS + REPUBLISH_BOUND_MS + 30_000);
  await loadRunning(load);

  const probes: Probe[] = [];
  let phase: Probe['phase'] = 'mismatch';
  const probeOnce = async (replica: number, range: string) => {
    const res = await edgeRequest(fault.replicas[replica]!.url, `/tiles/${replacedTs}.pmtiles`, {
      headers: { ...faultAuth(), Range: range },
      timeoutMs: 5000,
    });
    const [, start, end] = /bytes=(\d+)-(\d+)/.exec(range)!.map(Number) as [number, number, number];
    let bytes: Probe['bytes'];
    if (res.status === 200 || res.status === 206) {
      const etag = res.headers.etag;
      const version = etag === oldEtag ? original : replacement;
      bytes = res.body.equals(version.subarray(start, end + 1))
        ? etag === oldEtag
          ? 'old'
          : 'new'
        : 'wrong';
    }
    let errorRecord = false;
    if (res.status >= 400) {
      const body = res.json<{ error?: { code?: number; message?: string } }>();
      errorRecord =
        body.error?.code === res.status && body.error?.message === 'Service Unavailable';
    }
    probes.push({
      phase,
      replica,
      at: Date.now() - replacedAt,
      status: res.status,
      retryAfter: res.headers['retry-after'] as string | undefined,
      errorRecord,
      bytes,
    });
  };
  const breakerSeen: number[] = [];
  const probeRound = async () => {
    for (let replica = 0; replica < fault.replicas.length; replica++)
      for (const range of PROBE_RANGES) await probeOnce(replica, range);
    for (const r of fault.replicas)
      breakerSeen.push(await metric(r.adminPort, 'radar_object_store_breaker_open'));
    await new Promise((r) => setTimeout(r, 100));
  };
  // Phase 1: far past the breaker threshold on each replica, nobody re-validating.
  while (Date.now() < replacedAt + MISMATCH_MS) await probeRound();
  const mismatchesCounted = await objectErrors();

  // Phase 2: an ingest worker re-validates the replaced object and republishes it.
  phase = 'republish';
  ingest = await spawnIngest(fault.stack);
  const servedNewOn = (replica: number) =>
    probes.some((p) => p.phase === 'republish' && p.replica === replica && p.bytes === 'new');
  const republishStarted = Date.now();
  while (!fault.replicas.every((_r, i) => servedNewOn(i))) {
    if (Date.now() - republishStarted > REPUBLISH_BOUND_MS)
      throw new Error(`new version not served on both replicas within ${REPUBLISH_BOUND_MS} ms`);
    await probeRound();
  }
  const republishedMs = Date.now() - republishStarted;
  await probeRound(); // once more after both switched

  const outcomes = await load.stop();
  const others = outcomes.filter((o) => o.kind !== 'status' && !o.path.includes(replacedTs));
  const otherFailures = others.filter((o) => o.status !== 200 && o.status !== 206);
  const mismatchProbes = probes.filter((p) => p.phase === 'mismatch');
  const refused = probes.filter((p) => p.status === 503);
  const byStatus: Record<string, number> = {};
  for (const p of probes)
    byStatus[`${p.phase} ${p.status}`] = (byStatus[`${p.phase} ${p.status}`] ?? 0) + 1;

  await reportFault('object-replaced', {
    ...summarizeLoad(outcomes),
    replacedTimestamp: replacedTs,
    probesOfReplaced: probes.length,
    probesByPhaseAndStatus: byStatus,
    probe503WithRetryAfter: refused.filter((p) => p.retryAfter !== undefined).length,
    wrongBytes: probes.filter((p) => p.bytes === 'wrong').length,
    otherArchiveRequests: others.length,
    otherArchiveFailures: otherFailures.length,
    breakerEverOpen: breakerSeen.some((v) => v === 1),
    objectErrorsCountedInPhase1: mismatchesCounted,
    storeUnavailableAdded: (await storeUnavailable()) - unavailableBefore,
    mismatchPhaseMs: MISMATCH_MS,
    newVersionOnBothAfterIngestStartMs: republishedMs,
  });

  // Phase 1: the mismatch was exercised on both replicas, far past the breaker threshold,
  // and every probe was refused with the record and Retry-After, counted as an object error.
  for (let replica = 0; replica < fault.replicas.length; replica++)
    expect(mismatchProbes.filter((p) => p.replica === replica).length).toBeGreaterThan(
      BREAKER_THRESHOLD * 2,
    );
  for (const p of mismatchProbes) {
    expect(p).toMatchObject({ status: 503, errorRecord: true });
    expect(p.retryAfter).toMatch(/^[1-9]\d*$/);
  }
  expect(mismatchesCounted).toBeGreaterThanOrEqual(mismatchProbes.length);
  expect(breakerSeen.every((v) => v === 0)).toBe(true);
  // Phase 2: each answer is the refusal or the right bytes of one version; both replicas
  // ended on the new version.
  for (const p of probes.filter((q) => q.phase === 'republish')) {
    if (p.status === 503) expect(p).toMatchObject({ errorRecord: true });
    else expect(['old', 'new']).toContain(p.bytes);
  }
  expect(probes.filter((p) => p.bytes === 'wrong')).toEqual([]);
  expect(otherFailures).toEqual([]);
  expect((await storeUnavailable()) - unavailableBefore).toBe(0);
});
