/** Ingest leadership: only the lease holder runs passes; losing the lease stops publishing. */
import { createIngestWorker } from '../../../src/ingest/ingest-worker';
import { createSilentLogger } from '../../../src/logger';

function setup(leaseAnswers: Array<boolean | Error>) {
  const passes: number[] = [];
  const changes: boolean[] = [];
  let released = 0;
  const answers = [...leaseAnswers];
  const worker = createIngestWorker({
    cycle: {
      run: async () => void passes.push(passes.length + 1),
      tracked: () => ({ rejected: 0, failing: 0 }),
    },
    lease: {
      acquire: async () => {
        const next = answers.length > 1 ? answers.shift()! : answers[0]!;
        if (next instanceof Error) throw next;
        return next;
      },
      release: async () => void released++,
    },
    logger: createSilentLogger(),
    pollMs: 60_000,
    leaseRenewMs: 60_000,
    onLeadershipChange: (leader) => changes.push(leader),
  });
  return { worker, passes, changes, released: () => released };
}

it('a follower never runs a pass, even when notified', async () => {
  const { worker, passes, changes } = setup([false]);
  await worker.start();
  worker.notify();
  await worker.stop();
  expect(passes).toEqual([]);
  expect(changes).toEqual([]);
  expect(worker.isLeader()).toBe(false);
});

it('the leader reconciles at once on taking the lease, runs on notify, releases on stop', async () => {
  const { worker, passes, changes, released } = setup([true]);
  await worker.start();
  expect(worker.isLeader()).toBe(true);
  expect(passes).toEqual([1]);
  expect(worker.lastSuccessAgeS()).toBeLessThan(60);
  worker.notify();
  await worker.stop();
  expect(passes).toEqual([1, 2]);
  expect(changes).toEqual([true, false]);
  expect(released()).toBe(1);
});

it('a lease check that fails (Redis down) drops leadership; retake takes it back and reconciles', async () => {
  const { worker, passes, changes } = setup([true, new Error('redis down'), true]);
  await worker.start(); // leader, pass 1
  worker.retake(); // lease check throws: follower
  await new Promise((r) => setTimeout(r, 20));
  expect(worker.isLeader()).toBe(false);
  worker.notify();
  await new Promise((r) => setTimeout(r, 20));
  expect(passes).toEqual([1]);
  worker.retake(); // lease taken again: reconcile at once
  await new Promise((r) => setTimeout(r, 20));
  expect(worker.isLeader()).toBe(true);
  expect(passes.length).toBeGreaterThanOrEqual(2);
  await worker.stop();
  expect(changes).toEqual([true, false, true, false]);
});
