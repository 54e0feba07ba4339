/**
 * The load generator: a separate process (so it never shares the orchestrator's event loop
 * and its CPU and memory are measured on their own) that runs autocannon jobs received over
 * IPC. Every connection gets its own request list (`client.setRequests`), prebuilt once, so
 * a virtual map client walks a realistic plan without per-request rebuilding. Latencies are
 * recorded for every response (autocannon's own histogram keeps only 2xx, at 1 ms
 * resolution) into a microsecond histogram.
 *
 * Started by `load-client.ts` as `node --import tsx tools/bench/load-generator.ts`.
 */
import { createHistogram } from 'node:perf_hooks';
import autocannon from 'autocannon';
import type { FromGenerator, LoadJob, LoadResult, ToGenerator } from './load-job';

function send(message: FromGenerator): void {
  process.send?.(message);
}

type AutocannonClient = {
  setRequests(requests: autocannon.Request[]): void;
  parser: Record<number, unknown> & { constructor: { kOnBody: number } };
  pipelinedRequests: { clear(): void };
  _connect(): void;
};

function run(job: LoadJob): Promise<LoadResult> {
  const latency = createHistogram({ lowest: 1, highest: 120_000_000, figures: 3 });
  const statusCounts: Record<string, number> = {};
  const errorCodes: Record<string, number> = {};
  let responses = 0;
  let bytes = 0;
  let clientIndex = 0;
  const prebuilt = job.sequences.map((sequence) =>
    sequence.map((r) => ({
      method: 'GET' as const,
      path: r.path,
      headers: { ...job.headers, ...(r.range ? { range: r.range } : {}), ...r.headers },
    })),
  );

  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const instance = autocannon(
      {
        url: job.baseUrl,
        connections: job.connections,
        duration: job.durationS,
        amount: job.amount && job.amount > 0 ? job.amount : undefined,
        timeout: job.timeoutS ?? 10,
        pipelining: 1,
        headers: job.headers,
        excludeErrorStats: false,
        setupClient: (client: unknown) => {
          const c = client as AutocannonClient;
          const i = clientIndex++;
          const sequence = prebuilt[i % prebuilt.length]!;
          // Rotate the start so connections sharing a sequence are at different points.
          const shift = Math.floor((i / prebuilt.length) * 7919) % Math.max(1, sequence.length);
          c.setRequests([...sequence.slice(shift), ...sequence.slice(0, shift)]);
          // autocannon appends every body chunk to a string (a UTF-8 decode of binary tiles
          // per response) for a feature we do not use; drop it so the generator's CPU goes
          // to sending and parsing. The handler is installed after setupClient returns.
          queueMicrotask(() => {
            c.parser[c.parser.constructor.kOnBody] = () => {};
          });
          // When the server ends a keep-alive connection (nginx: keepalive_requests 1000),
          // autocannon reconnects but keeps the request already written to the dead socket in
          // its in-flight queue, so from then on every response is matched with the request
          // before it and latency grows by one round trip per reconnect. Forget the lost
          // request on every (re)connect.
          const connect = c._connect;
          c._connect = function (this: AutocannonClient) {
            this.pipelinedRequests.clear();
            connect.call(this);
          };
        },
      },
      (err, result) => {
        if (err) return reject(err);
        const durationS = Number(process.hrtime.bigint() - started) / 1e9;
        const expected = new Set(job.expect.map(String));
        const unexpected = Object.entries(statusCounts)
          .filter(([status]) => !expected.has(status))
          .reduce((sum, [, n]) => sum + n, 0);
        const ms = (us: number) => Math.round(us) / 1000;
        resolve({
          label: job.label,
          durationS: round(durationS, 2),
          responses,
          rps: round(responses / durationS, 0),
          latencyMs: {
            p50: ms(latency.percentile(50)),
            p90: ms(latency.percentile(90)),
            p99: ms(latency.percentile(99)),
            p999: ms(latency.percentile(99.9)),
            max: ms(latency.max),
            mean: ms(latency.mean),
          },
          mbPerS: round(bytes / durationS / 1e6, 1),
          statusCounts,
          errors: unexpected + result.errors + result.timeouts,
          socketErrors: result.errors,
          errorCodes,
          timeouts: result.timeouts,
        });
      },
    );
    instance.on('reqError', (err: NodeJS.ErrnoException) => {
      const code = err.code ?? err.message;
      errorCodes[code] = (errorCodes[code] ?? 0) + 1;
    });
    instance.on(
      'response',
      (_client, statusCode: number, resBytes: number, responseTimeMs: number) => {
        responses += 1;
        bytes += resBytes;
        statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
        latency.record(Math.max(1, Math.round(responseTimeMs * 1000)));
      },
    );
  });
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

process.on('message', (message: ToGenerator) => {
  if (message.type === 'exit') process.exit(0);
  run(message.job).then(
    (result) => send({ type: 'result', id: message.id, result }),
    (err: unknown) => send({ type: 'error', id: message.id, message: (err as Error).message }),
  );
});
send({ type: 'ready' });
