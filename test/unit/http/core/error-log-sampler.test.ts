import { Writable } from 'node:stream';
import pino from 'pino';
import { StoreUnavailableError } from '../../../../src/domain/archive-errors';
import { createErrorLogSampler } from '../../../../src/http/core/error-log-sampler';

function setup() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  let clock = 0;
  const sampler = createErrorLogSampler({
    logger: pino({ level: 'info' }, sink),
    intervalMs: 10_000,
    now: () => clock,
  });
  return { lines, sampler, tick: (ms: number) => (clock += ms) };
}

const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

it('logs a kind in full once, then once per interval with the count of the lines it left out', async () => {
  const { lines, sampler, tick } = setup();
  for (let i = 0; i < 50; i++) sampler.report(503, refused(), { path: '/x' });
  tick(10_000);
  sampler.report(503, refused(), { path: '/x' });
  await new Promise((r) => setImmediate(r));
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatchObject({ level: 50, status: 503, msg: 'request failed' });
  expect((lines[0]!.err as { stack: string }).stack).toContain('ECONNREFUSED');
  expect(lines[1]).toMatchObject({ suppressed: 49 });
  expect(String(lines[1]!.msg)).toContain('49 more of this kind');
});

it('keeps kinds apart (status, error name, code) and writes nothing for already-reported causes', async () => {
  const { lines, sampler } = setup();
  sampler.report(503, refused(), {});
  sampler.report(503, Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }), {});
  sampler.report(500, new TypeError('bug'), {});
  sampler.report(500, new TypeError('bug again'), {});
  for (let i = 0; i < 100; i++)
    sampler.report(
      503,
      new StoreUnavailableError('circuit breaker open', { alreadyReported: true }),
      {},
    );
  await new Promise((r) => setImmediate(r));
  expect(lines.map((l) => (l.err as { message: string }).message)).toEqual([
    'connect ECONNREFUSED',
    'timeout',
    'bug',
  ]);
});
