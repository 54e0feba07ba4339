/**
 * The store's circuit breaker: opens after consecutive failures, fails fast while open with
 * the time until its next trial, probes the store itself every cool-down and closes on the
 * first trial that answers. Real timers, short cool-downs.
 */
import {
  createCircuitBreaker,
  type CircuitBreaker,
} from '../../../../src/adapters/s3/circuit-breaker';

const breakers: CircuitBreaker[] = [];
afterEach(() => breakers.splice(0).forEach((b) => b.close()));

function setup(threshold = 3, cooldownMs = 1000) {
  let storeUp = false;
  let trials = 0;
  const changes: boolean[] = [];
  const breaker = createCircuitBreaker({
    threshold,
    cooldownMs,
    trial: async () => {
      trials++;
      if (!storeUp) throw new Error('store down');
    },
    onChange: (open) => changes.push(open),
  });
  breakers.push(breaker);
  return {
    breaker,
    changes,
    trials: () => trials,
    setStoreUp: (up: boolean) => (storeUp = up),
  };
}

function fail(breaker: CircuitBreaker, times: number) {
  for (let i = 0; i < times; i++) breaker.acquire()!.failure();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('S3 circuit breaker', () => {
  it('stays closed below the threshold and a success resets the count', () => {
    const { breaker } = setup(3);
    fail(breaker, 2);
    breaker.acquire()!.success();
    fail(breaker, 2);
    expect(breaker.isOpen()).toBe(false);
    expect(breaker.acquire()).toBeDefined();
  });

  it('opens after threshold consecutive failures, fails fast and says when it tries again', () => {
    const { breaker, changes } = setup(3, 1000);
    fail(breaker, 3);
    expect(breaker.isOpen()).toBe(true);
    expect(changes).toEqual([true]);
    expect(breaker.acquire()).toBeUndefined();
    const retry = breaker.retryAfterMs();
    expect(retry).toBeGreaterThan(900);
    expect(retry).toBeLessThanOrEqual(1000);
  });

  it('probes the store itself every cool-down, never through a client, and closes on the first answer', async () => {
    const { breaker, trials, setStoreUp, changes } = setup(2, 100);
    fail(breaker, 2);
    await sleep(350);
    // Three trials or so against the dead store; every client was refused meanwhile.
    expect(trials()).toBeGreaterThanOrEqual(2);
    expect(breaker.acquire()).toBeUndefined();
    expect(breaker.isOpen()).toBe(true);
    setStoreUp(true);
    await sleep(250);
    expect(breaker.isOpen()).toBe(false);
    expect(changes).toEqual([true, false]);
    expect(breaker.acquire()).toBeDefined();
    const after = trials();
    await sleep(250);
    expect(trials()).toBe(after); // closed: no more trials
  });

  it('a released permit gives no verdict; only the first verdict of a permit counts', () => {
    const { breaker } = setup(2);
    const permit = breaker.acquire()!;
    permit.failure();
    permit.failure();
    breaker.acquire()!.release();
    expect(breaker.isOpen()).toBe(false);
  });

  it('stops probing once closed for shutdown', async () => {
    const { breaker, trials } = setup(1, 50);
    fail(breaker, 1);
    breaker.close();
    await sleep(200);
    expect(trials()).toBe(0);
  });
});
