import { createCircuitBreaker } from '../../../../src/adapters/s3/circuit-breaker';

function setup(threshold = 3, cooldownMs = 1000) {
  let now = 0;
  const breaker = createCircuitBreaker({ threshold, cooldownMs, now: () => now });
  return { breaker, advance: (ms: number) => (now += ms) };
}

function fail(breaker: ReturnType<typeof setup>['breaker'], times: number) {
  for (let i = 0; i < times; i++) breaker.acquire()!.failure();
}

describe('S3 circuit breaker', () => {
  it('stays closed below the threshold and a success resets the count', () => {
    const { breaker } = setup(3);
    fail(breaker, 2);
    breaker.acquire()!.success();
    fail(breaker, 2);
    expect(breaker.isOpen()).toBe(false);
    expect(breaker.acquire()).toBeDefined();
  });

  it('opens after threshold consecutive failures and fails fast during the cool-down', () => {
    const { breaker, advance } = setup(3, 1000);
    fail(breaker, 3);
    expect(breaker.isOpen()).toBe(true);
    expect(breaker.acquire()).toBeUndefined();
    advance(999);
    expect(breaker.acquire()).toBeUndefined();
  });

  it('lets exactly one trial through after the cool-down; its success closes the breaker', () => {
    const { breaker, advance } = setup(3, 1000);
    fail(breaker, 3);
    advance(1000);
    const trial = breaker.acquire();
    expect(trial).toBeDefined();
    expect(breaker.acquire()).toBeUndefined();
    trial!.success();
    expect(breaker.isOpen()).toBe(false);
    expect(breaker.acquire()).toBeDefined();
  });

  it('re-opens for a full cool-down when the trial fails', () => {
    const { breaker, advance } = setup(3, 1000);
    fail(breaker, 3);
    advance(1500);
    breaker.acquire()!.failure();
    expect(breaker.isOpen()).toBe(true);
    advance(999);
    expect(breaker.acquire()).toBeUndefined();
    advance(1);
    expect(breaker.acquire()).toBeDefined();
  });

  it('a released trial frees the slot without a verdict; stale permits cannot free it', () => {
    const { breaker, advance } = setup(2, 1000);
    const stale = breaker.acquire()!;
    fail(breaker, 2);
    advance(1000);
    const trial = breaker.acquire()!;
    stale.release();
    expect(breaker.acquire()).toBeUndefined();
    trial.release();
    expect(breaker.isOpen()).toBe(true);
    expect(breaker.acquire()).toBeDefined();
  });

  it('counts only the first verdict of a permit', () => {
    const { breaker } = setup(2);
    const permit = breaker.acquire()!;
    permit.failure();
    permit.failure();
    expect(breaker.isOpen()).toBe(false);
  });
});
