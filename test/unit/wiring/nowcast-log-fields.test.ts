/**
 * The nowcast's log lines name the producer's component once: a producer wired into a replica
 * logs with `component` (`simulator`, `mrms`), and the nowcast inside it tags its own lines
 * with `part`, so no line carries the `component` key twice (JSON with a duplicate key, whose
 * readers keep only one of the two values).
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { SIMULATOR_FRAME_MODULE } from '../../../src/sim/simulator-frame';
import { nowcastPublisher } from '../../../src/wiring/nowcast';

it('a nowcast under a component logs that component once and itself as the part', async () => {
  const lines: string[] = [];
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const producer = pino({ level: 'info' }, logs).child({ component: 'simulator' });
  // Never written: the one frame is refused before it reaches a worker.
  const sink = { has: async () => false, put: async () => undefined };
  const nowcast = nowcastPublisher(
    sink,
    { enabled: true, leads: [10, 20] },
    { module: SIMULATOR_FRAME_MODULE, options: { maxZoom: 2, seed: 7 } },
    producer,
  );
  // A frame without a timestamp is logged at once, before any worker starts.
  nowcast!.observe('not-a-timestamp', {});
  await nowcast!.close();
  expect(lines).toHaveLength(1);
  const [line = ''] = lines;
  expect(line.match(/"component":/g)).toEqual(['"component":']);
  expect(JSON.parse(line)).toMatchObject({
    component: 'simulator',
    part: 'nowcast',
    msg: 'nowcast given a frame without a timestamp',
  });
});
