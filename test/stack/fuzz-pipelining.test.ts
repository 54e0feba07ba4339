/**
 * Pipelined requests on one keep-alive connection, split at random byte positions across TCP
 * writes, some carrying bodies (Content-Length or chunked) that contain a complete smuggled
 * request. The replica must answer exactly one response per request, in order, each the
 * expected status and satisfying the response invariants, and never answer the smuggled
 * request (no extra response), so a proxy in front can never be desynchronised.
 */
import fc from 'fast-check';
import { auth } from '../harness/embedded-api';
import { useHostileApi } from '../harness/fuzz/hostile-api-fixture';
import { checkProperty, tally } from '../harness/fuzz/fuzz-run';
import { SMALL_TS } from '../harness/fuzz/hostile-api';
import { checkResponse, InvariantViolation } from '../harness/fuzz/invariants';
import { rawPipeline } from '../harness/raw-socket';

jest.setTimeout(120_000);

const api = useHostileApi('pipelining.test.ts');

const creds = Object.entries(auth())
  .map(([n, v]) => `${n}: ${v}\r\n`)
  .join('');
const tile = `/tiles/${SMALL_TS}.pmtiles`;
const smuggled = `GET ${tile} HTTP/1.1\r\nHost: x\r\n${creds}Range: bytes=0-9\r\n\r\n`;

interface Step {
  readonly method: string;
  readonly target: string;
  /** The request as latin1 text (shown readably in counterexamples). */
  readonly text: string;
  readonly status: number;
}

function step(method: string, target: string, headers: string, status: number, body = ''): Step {
  const text = `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n${body}`;
  return { method, target, text, status };
}

const chunked = (payload: string, pieces: number) => {
  const size = Math.max(1, Math.ceil(payload.length / pieces));
  let out = '';
  for (let i = 0; i < payload.length; i += size) {
    const part = payload.slice(i, i + size);
    out += `${part.length.toString(16)}\r\n${part}\r\n`;
  }
  return `${out}0\r\n\r\n`;
};

function stepArb(size: number): fc.Arbitrary<Step> {
  return fc.oneof(
    fc.constant(step('GET', '/status.json', creds, 200)),
    fc
      .integer({ min: 0, max: size - 1 })
      .chain((a) =>
        fc
          .integer({ min: a, max: size - 1 })
          .map((b) => step('GET', tile, `${creds}Range: bytes=${a}-${b}\r\n`, 206)),
      ),
    fc.constant(step('HEAD', tile, creds, 200)),
    fc.constant(step('GET', tile, creds, 200)),
    fc.string({ unit: 'binary-ascii', maxLength: 200 }).map((junk) => {
      const body = `${junk}${smuggled}`;
      return step(
        'GET',
        '/status.json',
        `${creds}Content-Length: ${Buffer.byteLength(body, 'latin1')}\r\n`,
        200,
        body,
      );
    }),
    fc
      .integer({ min: 1, max: 5 })
      .map((pieces) =>
        step(
          'GET',
          '/status.json',
          `${creds}Transfer-Encoding: chunked\r\n`,
          200,
          chunked(smuggled, pieces),
        ),
      ),
    fc.constant(step('GET', '/tiles/2026.pmtiles', creds, 400)),
    fc.constant(step('GET', '/nope', creds, 404)),
    fc.constant(step('GET', tile, '', 401)),
    fc.constant(step('GET', tile, `${creds}If-Match: "nope"\r\n`, 412)),
    fc.constant(step('DELETE', tile, `Content-Length: ${smuggled.length}\r\n`, 405, smuggled)),
    fc.constant(step('OPTIONS', tile, '', 204)),
  );
}

it('pipelined and split requests: one response per request, in order, nothing smuggled', async () => {
  const size = api().archives.get(SMALL_TS)!.length;
  const caseArb = fc.record({
    steps: fc.array(stepArb(size), { minLength: 1, maxLength: 6 }),
    cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }),
  });
  await checkProperty('pipelines', 250, caseArb, async ({ steps, cuts }) => {
    const all = Buffer.concat(steps.map((s) => Buffer.from(s.text, 'latin1')));
    const positions = [...new Set(cuts.map((c) => Math.floor(c * all.length)))].sort(
      (a, b) => a - b,
    );
    const chunks: Buffer[] = [];
    let at = 0;
    for (const p of [...positions, all.length]) {
      if (p > at) chunks.push(all.subarray(at, p));
      at = p;
    }
    api().resetSpies();
    const result = await rawPipeline(
      api().port,
      chunks,
      steps.map((s) => s.method),
      { timeoutMs: 8000, pauseMs: 1 },
    );
    const shown = JSON.stringify(all.toString('latin1').slice(0, 800));
    const got = result.responses.map((r) => r.status);
    for (const s of got) tally(s);
    if (result.timedOut && got.length < steps.length)
      throw new InvariantViolation(`hang after ${got.length} responses\n  ${shown}`);
    if (got.join() !== steps.map((s) => s.status).join()) {
      throw new InvariantViolation(
        `statuses ${got.join()} instead of ${steps.map((s) => s.status).join()}\n  ${shown}`,
      );
    }
    if (result.extra.length > 0) {
      throw new InvariantViolation(
        `bytes after the last response (a smuggled answer?): ${JSON.stringify(result.extra.toString('latin1').slice(0, 200))}`,
      );
    }
    steps.forEach((s, i) =>
      checkResponse(api(), s.text, result.responses[i]!, {
        method: s.method,
        skipStoreCalls: true,
      }),
    );
    const reads = steps.filter(
      (s, i) =>
        s.method === 'GET' && [200, 206].includes(result.responses[i]!.status) && s.target === tile,
    );
    if (api().storeCalls.length !== reads.length) {
      throw new InvariantViolation(
        `${api().storeCalls.length} store reads for ${reads.length} archive responses\n  ${shown}`,
      );
    }
    for (const call of api().storeCalls) {
      if (call.timestamp !== SMALL_TS)
        throw new InvariantViolation(`store read of ${call.timestamp}`);
    }
  });
});
