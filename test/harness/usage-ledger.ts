/**
 * The client side of the usage tests: a ledger of what each key's requests got (status and
 * body bytes received), downloads a client abandons part way, and the comparison with a usage
 * report's key entry under the documented bounds (docs/usage.md, "Accuracy"):
 *
 * - requests: exactly equal;
 * - statuses: exactly equal, except that a download the client abandoned counts on the server
 *   either with the status it was answered with (the replica handed every byte over, e.g. into
 *   nginx's buffers, before the client left) or as 499 (the replica's write was cut);
 * - bytes: completed bodies exactly; an abandoned download between what the client received
 *   and its Content-Length.
 */
import http from 'node:http';
import type { KeyUsage, UsageReport } from '../../src/domain/usage-report';
import { request, type RawResponse } from './http-client';

interface KeyLedger {
  requests: number;
  statuses: Record<string, number>;
  /** Abandoned downloads by the status they were answered with. */
  abandoned: Record<string, number>;
  bytes: number;
  abandonedReceived: number;
  abandonedPlanned: number;
}

export class UsageLedger {
  readonly keys = new Map<string, KeyLedger>();

  private of(key: string): KeyLedger {
    let k = this.keys.get(key);
    if (!k) {
      k = {
        requests: 0,
        statuses: {},
        abandoned: {},
        bytes: 0,
        abandonedReceived: 0,
        abandonedPlanned: 0,
      };
      this.keys.set(key, k);
    }
    return k;
  }

  /** A completed response of a request that named `key` (HEAD: pass its empty body). */
  answered(key: string, res: Pick<RawResponse, 'status' | 'body'>): void {
    const k = this.of(key);
    k.requests++;
    k.statuses[res.status] = (k.statuses[res.status] ?? 0) + 1;
    k.bytes += res.body.length;
  }

  /** A download of `key` abandoned after `received` of `planned` body bytes. */
  abandonedDownload(key: string, d: AbandonedDownload): void {
    const k = this.of(key);
    k.requests++;
    k.abandoned[d.status] = (k.abandoned[d.status] ?? 0) + 1;
    k.abandonedReceived += d.received;
    k.abandonedPlanned += d.planned;
  }

  requests(key: string): number {
    return this.keys.get(key)?.requests ?? 0;
  }

  /** Every status the ledger saw, of every key (tests check the mix is what they meant). */
  statusesSeen(): Set<number> {
    const seen = new Set<number>();
    for (const k of this.keys.values()) {
      for (const s of Object.keys(k.statuses)) seen.add(Number(s));
      if (Object.keys(k.abandoned).length > 0) seen.add(499);
    }
    return seen;
  }
}

export interface AbandonedDownload {
  readonly status: number;
  readonly received: number;
  readonly planned: number;
}

/**
 * GETs `path` and destroys the connection once at least `after` body bytes arrived (the
 * client leaves part way); resolves with the status, the bytes received and Content-Length.
 */
export function abandonDownload(
  baseUrl: string,
  path: string,
  headers: http.OutgoingHttpHeaders,
  after: number,
): Promise<AbandonedDownload> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: url.hostname, port: url.port, path, headers, agent: false },
      (res) => {
        const planned = Number(res.headers['content-length']);
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received >= after) {
            res.pause();
            req.destroy();
            resolve({ status: res.statusCode ?? 0, received, planned });
          }
        });
        res.on('end', () =>
          reject(new Error(`${path}: the whole body (${received} bytes) arrived before leaving`)),
        );
      },
    );
    req.on('error', (err) => {
      if (!req.destroyed) reject(err);
    });
  });
}

/** The differences between a report's key entry and the ledger; empty when they agree. */
export function usageMismatches(
  key: string,
  ledger: UsageLedger,
  got: KeyUsage | undefined,
): string[] {
  const want = ledger.keys.get(key);
  if (!want) return got ? [`${key}: counted ${got.requests} requests, sent none`] : [];
  if (!got) return [`${key}: not in the report, sent ${want.requests}`];
  const problems: string[] = [];
  if (got.requests !== want.requests)
    problems.push(`${key}: requests ${got.requests}, sent ${want.requests}`);
  const statuses = new Set([
    ...Object.keys(want.statuses),
    ...Object.keys(want.abandoned),
    ...Object.keys(got.statuses),
  ]);
  let abandonedAsAnswered = 0;
  for (const s of statuses) {
    if (s === '499') continue;
    const server = got.statuses[s] ?? 0;
    const client = want.statuses[s] ?? 0;
    const abandoned = want.abandoned[s] ?? 0;
    if (server < client || server > client + abandoned)
      problems.push(
        `${key}: status ${s} counted ${server}, client saw ${client} (+${abandoned} abandoned)`,
      );
    abandonedAsAnswered += Math.max(0, server - client);
  }
  const abandonedTotal = Object.values(want.abandoned).reduce((a, b) => a + b, 0);
  if ((got.statuses['499'] ?? 0) + abandonedAsAnswered !== abandonedTotal)
    problems.push(
      `${key}: 499 counted ${got.statuses['499'] ?? 0} + ${abandonedAsAnswered} abandoned counted as answered, client abandoned ${abandonedTotal}`,
    );
  const low = want.bytes + want.abandonedReceived;
  const high = want.bytes + want.abandonedPlanned;
  if (got.bytes < low || got.bytes > high)
    problems.push(`${key}: bytes ${got.bytes} outside [${low}, ${high}]`);
  return problems;
}

/**
 * Every difference between a whole report and the ledger: each key sent checked by
 * `usageMismatches`, and each key counted but never sent, except the `unledgered` ones (keys
 * the harness itself uses outside the ledger). Empty when they agree.
 */
export function reportMismatches(
  ledger: UsageLedger,
  report: UsageReport,
  unledgered: ReadonlySet<string>,
): string[] {
  const problems = [...ledger.keys.keys()].flatMap((key) =>
    usageMismatches(
      key,
      ledger,
      report.keys.find((k) => k.key === key),
    ),
  );
  for (const k of report.keys)
    if (!ledger.keys.has(k.key) && !unledgered.has(k.key))
      problems.push(`${k.key}: counted ${k.requests}, never sent`);
  return problems;
}

/** What one round of the mix sends with. */
export interface UsageMixPlan {
  readonly baseUrl: string;
  /** The main key (a limit no run reaches) and a key with a small limit (429s). */
  readonly main: { readonly id: string; readonly headers: Record<string, string> };
  readonly limited: { readonly id: string; readonly headers: Record<string, string> };
  /** A published archive (ranges, 304, 416, HEAD) and a large one (abandoned downloads). */
  readonly archive: { readonly timestamp: string; readonly size: number };
  readonly big?: string;
  /** Requests of the limited key (past its limit: 429s). */
  readonly limitedRequests?: number;
}

/**
 * One round of the mix every usage test sends, recorded in `ledger`: status 200 and 304,
 * ranges (206), an unsatisfiable range (416), HEAD, an unpublished (404) and a malformed
 * (400) timestamp, TileJSON, the main key with an unknown app (401, counted for the key), the
 * limited key until it is refused (429), and an abandoned download when `big` is given.
 */
export async function sendUsageMix(plan: UsageMixPlan, ledger: UsageLedger): Promise<void> {
  const { main, limited, archive } = plan;
  const send = async (
    key: string,
    path: string,
    headers: Record<string, string>,
    method = 'GET',
  ) => {
    const res = await request(plan.baseUrl, path, { method, headers, timeoutMs: 15_000 });
    ledger.answered(key, method === 'HEAD' ? { status: res.status, body: Buffer.alloc(0) } : res);
    return res;
  };
  const tiles = `/tiles/${archive.timestamp}.pmtiles`;
  const status = await send(main.id, '/status.json', main.headers);
  await send(main.id, '/status.json', {
    ...main.headers,
    'If-None-Match': String(status.headers.etag),
  });
  await send(main.id, tiles, { ...main.headers, Range: 'bytes=0-16383' });
  await send(main.id, tiles, { ...main.headers, Range: 'bytes=16384-40000' });
  await send(main.id, tiles, { ...main.headers, Range: `bytes=${archive.size + 1}-` });
  await send(main.id, tiles, main.headers, 'HEAD');
  await send(main.id, '/tiles/200001010000.pmtiles', main.headers);
  await send(main.id, '/tiles/20000101.pmtiles', main.headers);
  await send(main.id, `/tiles/${archive.timestamp}.json`, main.headers);
  await send(main.id, '/status.json', { ...main.headers, 'X-App': 'Bearer no-such-app' });
  for (let i = 0; i < (plan.limitedRequests ?? 12); i++)
    await send(limited.id, '/status.json', limited.headers);
  if (plan.big !== undefined)
    ledger.abandonedDownload(
      main.id,
      await abandonDownload(plan.baseUrl, `/tiles/${plan.big}.pmtiles`, main.headers, 32 * 1024),
    );
}
