/**
 * Fault matrix, one object replaced under a published timestamp (issue 11 item 1, store side):
 * the producer overwrites a published archive with other bytes (another archive: different ETag
 * and size). Under a map-client load through nginx and a stream of uncached ranges of the
 * replaced timestamp on both replicas, far past the breaker threshold:
 *
 * - the breaker stays closed on both replicas and every other archive keeps being served;
 * - the replaced timestamp answers 503 with `Retry-After` and the error record while the catalog
 *   still describes the old version (or, once ingest has re-validated and republished it, the
 *   new version under its new ETag) - never bytes of one version under the other's ETag;
 * - the mismatches are counted by reason, not as store errors.
 */
// The store's breaker defaults: the replicas here run with them.
import { DEFAULT_BREAKER_THRESHOLD as BREAKER_THRESHOLD } from '../../src/adapters/s3/archive-store';
import { buildArchive } from '../fixtures/archives';
import { edgeRequest } from '../harness/edge-stack';
import {
  faultAuth,
  metric,
  reportFault,
  startFaultStack,
  type FaultStack,
} from '../harness/fault-stack';
import { startMapClientLoad, summarizeLoad } from '../harness/map-client-load';
import { waitFor } from '../harness/wait';

jest.setTimeout(120_000);

/** Past the warmed header block (the first 64 KiB), so every read goes to the store. */
const PROBE_RANGES = ['bytes=70000-70999', 'bytes=90000-90499', 'bytes=120000-121023'];
const WATCH_MS = 15_000;

let fault: FaultStack;

beforeAll(async () => {
  fault = await startFaultStack();
});
afterAll(async () => {
  await fault?.stop();
});

interface Probe {
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

  const load = startMapClientLoad({
    baseUrl: fault.nginx.url,
    headers: faultAuth(),
    clients: 4,
    durationMs: WATCH_MS + 30_000,
  });
  await waitFor(() => load.outcomes.length >= 20, 10_000, 'load running', 20);

  const replacedAt = Date.now();
  await fault.stack.s3.put(key, replacement);

  const probes: Probe[] = [];
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
      replica,
      at: Date.now() - replacedAt,
      status: res.status,
      retryAfter: res.headers['retry-after'] as string | undefined,
      errorRecord,
      bytes,
    });
  };
  // Far past the breaker threshold on each replica, for the whole watch.
  const watchUntil = replacedAt + WATCH_MS;
  const breakerSeen: number[] = [];
  while (Date.now() < watchUntil) {
    for (let replica = 0; replica < fault.replicas.length; replica++)
      for (const range of PROBE_RANGES) await probeOnce(replica, range);
    for (const r of fault.replicas)
      breakerSeen.push(await metric(r.adminPort, 'radar_object_store_breaker_open'));
    await new Promise((r) => setTimeout(r, 100));
  }
  const outcomes = await load.stop();
  const others = outcomes.filter((o) => o.kind !== 'status' && !o.path.includes(replacedTs));
  const otherFailures = others.filter((o) => o.status !== 200 && o.status !== 206);
  const refused = probes.filter((p) => p.status === 503);
  const servedNew = probes.filter((p) => p.bytes === 'new');
  const firstNew = servedNew[0]?.at;
  const mismatches = await objectErrors();
  const byStatus: Record<string, number> = {};
  for (const p of probes) byStatus[p.status] = (byStatus[p.status] ?? 0) + 1;

  await reportFault('object-replaced', {
    ...summarizeLoad(outcomes),
    replacedTimestamp: replacedTs,
    probesOfReplaced: probes.length,
    probesByStatus: byStatus,
    probe503WithRetryAfter: refused.filter((p) => p.retryAfter !== undefined).length,
    wrongBytes: probes.filter((p) => p.bytes === 'wrong').length,
    otherArchiveRequests: others.length,
    otherArchiveFailures: otherFailures.length,
    breakerEverOpen: breakerSeen.some((v) => v === 1),
    objectErrorsCounted: mismatches,
    storeUnavailableAdded: (await storeUnavailable()) - unavailableBefore,
    newVersionServedAfterMs: firstNew ?? null,
    watchMs: WATCH_MS,
  });

  expect(probes.length).toBeGreaterThan(BREAKER_THRESHOLD * 4);
  expect(probes.filter((p) => p.bytes === 'wrong')).toEqual([]);
  expect(breakerSeen.every((v) => v === 0)).toBe(true);
  expect(otherFailures).toEqual([]);
  for (const p of refused) {
    expect(p.retryAfter).toMatch(/^[1-9]\d*$/);
    expect(p.errorRecord).toBe(true);
  }
  // Every answer is either the refusal or the right bytes of one version.
  expect(probes.every((p) => p.status === 503 || p.bytes !== undefined)).toBe(true);
  if (refused.length > 0) expect(mismatches).toBeGreaterThanOrEqual(refused.length);
  expect((await storeUnavailable()) - unavailableBefore).toBe(0);
});
