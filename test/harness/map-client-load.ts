/**
 * A bounded load of map clients for e2e and fault tests: a few virtual clients, each on its own
 * 127.0.0.x source address (nginx limits per IP) with its own keep-alive agent, doing what a
 * MapLibre + pmtiles client does: read `/status.json`, then for each of the newest frames the
 * 16 KiB header + root directory range and a few tile-sized ranges, then the status again.
 * A fixed `sequence` of requests can replace that walk. Every request is recorded (start,
 * latency, status or transport error, and whether an error body is the API's error record);
 * the load stops at its duration, its request count, or `stop()`, whichever comes first.
 */
import http from 'node:http';
import { edgeRequest } from './edge-stack';
import { createUniformSequence } from '../../src/sim/noise';

export type MapRequestKind = 'status' | 'header' | 'tile';

export interface MapRequest {
  readonly kind: MapRequestKind;
  readonly path: string;
  /** `Range` header value, e.g. `bytes=0-16383`. */
  readonly range?: string;
}

export interface LoadOutcome {
  /** Virtual client number (0-based). */
  readonly client: number;
  readonly kind: MapRequestKind;
  readonly path: string;
  /** Epoch ms when the request was sent. */
  readonly start: number;
  /** Client-side latency: sent to last body byte (or to the error). */
  readonly ms: number;
  /** The HTTP status, or the error message when no complete response arrived. */
  readonly status: number | string;
  /** For statuses >= 400: the body is `{"error":{"code":<status>,"message":<reason phrase>}}`. */
  readonly errorRecord?: boolean;
  /** For 429 and 503: the `Retry-After` header as sent (undefined when absent). */
  readonly retryAfter?: string;
}

export interface StatusBody {
  readonly healthy: boolean;
  readonly latest: string;
  readonly timestamps: string[];
}

export interface MapClientLoadOptions {
  readonly baseUrl: string;
  /** Credentials (and any other headers) sent with every request. */
  readonly headers: Readonly<Record<string, string>>;
  /** Concurrent virtual clients (default 4). */
  readonly clients?: number;
  /** Client n sends from `127.0.0.{firstAddress + n}` (default 20). */
  readonly firstAddress?: number;
  /** Pause between two requests of one client (default 40 ms: about 25 requests/s each). */
  readonly pauseMs?: number;
  /** Upper bound of the run (default 60 s). */
  readonly durationMs?: number;
  /** Upper bound of requests over all clients (default 20 000). */
  readonly maxRequests?: number;
  /** Per-request timeout (default 10 s); a timeout is recorded as an error outcome. */
  readonly timeoutMs?: number;
  /** Frames a client animates (the newest ones of the status list; default 3). */
  readonly frames?: number;
  /** Tile ranges read per frame after its header (default 4). */
  readonly tilesPerFrame?: number;
  /** Requests each client cycles through instead of the status-driven walk. */
  readonly sequence?: readonly MapRequest[];
  /** Called with every parsed 200 status body (e.g. to check it for duplicates). */
  readonly onStatus?: (body: StatusBody, outcome: LoadOutcome) => void;
}

export interface MapClientLoad {
  /** Outcomes so far, in completion order (the array grows while the load runs). */
  readonly outcomes: LoadOutcome[];
  /** Resolves with every outcome once all clients stopped. */
  readonly done: Promise<LoadOutcome[]>;
  /** Ends the load after the requests in flight; resolves like `done`. */
  stop(): Promise<LoadOutcome[]>;
}

const ERROR_MESSAGES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

function isErrorRecord(status: number, body: Buffer): boolean {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as {
      error?: { code?: unknown; message?: unknown };
    };
    const expected = ERROR_MESSAGES[status];
    return (
      parsed.error?.code === status &&
      typeof parsed.error.message === 'string' &&
      (expected === undefined || parsed.error.message === expected)
    );
  } catch {
    return false;
  }
}

const HEADER_RANGE = 'bytes=0-16383';
const HEADER_BYTES = 16384;

/** Starts the clients at once; see the module comment. */
export function startMapClientLoad(options: MapClientLoadOptions): MapClientLoad {
  const clients = options.clients ?? 4;
  const firstAddress = options.firstAddress ?? 20;
  const pauseMs = options.pauseMs ?? 40;
  const maxRequests = options.maxRequests ?? 20_000;
  const frames = options.frames ?? 3;
  const tilesPerFrame = options.tilesPerFrame ?? 4;
  const stopAt = Date.now() + (options.durationMs ?? 60_000);
  const outcomes: LoadOutcome[] = [];
  let sent = 0;
  let stopped = false;
  let wake: Array<() => void> = [];

  const running = () => !stopped && sent < maxRequests && Date.now() < stopAt;
  const pause = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, pauseMs);
      function done() {
        clearTimeout(timer);
        wake = wake.filter((w) => w !== done);
        resolve();
      }
      wake.push(done);
    });

  const client = async (n: number) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
    const random = createUniformSequence(0x5eed + n);
    /** Sizes learnt from header answers' Content-Range, by archive path. */
    const sizes = new Map<string, number>();
    let known: string[] = [];

    const send = async (
      req: MapRequest,
    ): Promise<{ outcome: LoadOutcome; body?: Buffer; headers?: http.IncomingHttpHeaders }> => {
      sent += 1;
      const start = Date.now();
      let result: { outcome: LoadOutcome; body?: Buffer; headers?: http.IncomingHttpHeaders };
      try {
        const res = await edgeRequest(options.baseUrl, req.path, {
          agent,
          localAddress: `127.0.0.${firstAddress + n}`,
          headers: req.range ? { ...options.headers, Range: req.range } : options.headers,
          timeoutMs: options.timeoutMs ?? 10_000,
        });
        result = {
          outcome: {
            client: n,
            kind: req.kind,
            path: req.path,
            start,
            ms: Date.now() - start,
            status: res.status,
            ...(res.status >= 400 ? { errorRecord: isErrorRecord(res.status, res.body) } : {}),
            ...(res.status === 429 || res.status === 503
              ? { retryAfter: res.headers['retry-after'] as string | undefined }
              : {}),
          },
          body: res.body,
          headers: res.headers,
        };
      } catch (err) {
        result = {
          outcome: {
            client: n,
            kind: req.kind,
            path: req.path,
            start,
            ms: Date.now() - start,
            status: (err as Error).message,
          },
        };
      }
      outcomes.push(result.outcome);
      return result;
    };

    /** The requests of one pass of the status-driven walk, produced as answers arrive. */
    const walk = async () => {
      const status = await send({ kind: 'status', path: '/status.json' });
      if (status.outcome.status === 200 && status.body) {
        try {
          const body = JSON.parse(status.body.toString('utf8')) as StatusBody;
          known = body.timestamps.slice(0, frames);
          options.onStatus?.(body, status.outcome);
        } catch {
          // A broken status body is visible in the outcome's status; keep the last list.
        }
      }
      // Like a real client, keep animating the frames it already knows when status fails.
      for (const timestamp of known) {
        if (!running()) return;
        await pause();
        const path = `/tiles/${timestamp}.pmtiles`;
        const header = await send({ kind: 'header', path, range: HEADER_RANGE });
        const total = /\/(\d+)$/.exec(String(header.headers?.['content-range'] ?? ''))?.[1];
        if (header.outcome.status === 206 && total) sizes.set(path, Number(total));
        const size = sizes.get(path);
        if (size === undefined || size <= HEADER_BYTES + 2048) continue;
        for (let t = 0; t < tilesPerFrame && running(); t++) {
          await pause();
          const length = 300 + Math.floor(random() * 1200);
          const offset = HEADER_BYTES + Math.floor(random() * (size - HEADER_BYTES - length));
          await send({ kind: 'tile', path, range: `bytes=${offset}-${offset + length - 1}` });
        }
      }
    };

    try {
      for (let i = 0; running(); i++) {
        if (options.sequence) await send(options.sequence[i % options.sequence.length]!);
        else await walk();
        if (running()) await pause();
      }
    } finally {
      agent.destroy();
    }
  };

  const done = Promise.all(Array.from({ length: clients }, (_, n) => client(n))).then(
    () => outcomes,
  );
  return {
    outcomes,
    done,
    stop() {
      stopped = true;
      for (const w of [...wake]) w();
      return done;
    },
  };
}

/** Runs a load to its end (duration or request count). */
export function runMapClientLoad(options: MapClientLoadOptions): Promise<LoadOutcome[]> {
  return startMapClientLoad(options).done;
}

/** 200 or 206: what a map client counts as served. */
export function isServed(outcome: LoadOutcome): boolean {
  return outcome.status === 200 || outcome.status === 206;
}

export interface LoadSummary {
  readonly requests: number;
  /** Outcomes by HTTP status, or by transport error message. */
  readonly byStatus: Record<string, number>;
  /** Outcomes that were not 200/206. */
  readonly failed: number;
  readonly worstMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** Counts and latencies of a set of outcomes. */
export function summarizeLoad(outcomes: readonly LoadOutcome[]): LoadSummary {
  const byStatus: Record<string, number> = {};
  for (const o of outcomes) byStatus[String(o.status)] = (byStatus[String(o.status)] ?? 0) + 1;
  const sorted = outcomes.map((o) => o.ms).sort((a, b) => a - b);
  const at = (q: number) =>
    sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return {
    requests: outcomes.length,
    byStatus,
    failed: outcomes.filter((o) => !isServed(o)).length,
    worstMs: sorted.length === 0 ? 0 : sorted[sorted.length - 1]!,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
  };
}
