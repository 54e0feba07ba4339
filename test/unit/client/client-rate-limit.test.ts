/** Reading the rate-limit headers: quota state and the wait after a 429. */
import { readRateLimit, retryDelayMs } from '../../../src/client/rate-limit';

const headers = (values: Record<string, string>) => new Headers(values);
const NOW = Date.UTC(2026, 10, 22, 14, 0, 0);

describe('readRateLimit', () => {
  it('reads the three headers, Reset as Unix seconds', () => {
    expect(
      readRateLimit(
        headers({
          'X-RateLimit-Limit': '1200',
          'X-RateLimit-Remaining': '7',
          'X-RateLimit-Reset': '1795356060',
        }),
        NOW,
      ),
    ).toEqual({ limit: 1200, remaining: 7, resetAtMs: 1795356060_000, observedAtMs: NOW });
  });
  it('is undefined when a header is missing or not an integer', () => {
    expect(
      readRateLimit(headers({ 'X-RateLimit-Limit': '1200', 'X-RateLimit-Remaining': '7' }), NOW),
    ).toBeUndefined();
    expect(
      readRateLimit(
        headers({
          'X-RateLimit-Limit': '12.5',
          'X-RateLimit-Remaining': '7',
          'X-RateLimit-Reset': '1',
        }),
        NOW,
      ),
    ).toBeUndefined();
  });
});

describe('retryDelayMs', () => {
  it('prefers Retry-After seconds', () => {
    expect(
      retryDelayMs(
        headers({ 'Retry-After': '7', 'X-RateLimit-Reset': String(NOW / 1000 + 30) }),
        NOW,
        1000,
      ),
    ).toBe(7000);
  });
  it('accepts Retry-After as an HTTP-date', () => {
    expect(
      retryDelayMs(headers({ 'Retry-After': new Date(NOW + 12_000).toUTCString() }), NOW, 1000),
    ).toBe(12_000);
  });
  it('falls back to X-RateLimit-Reset, then to the given backoff', () => {
    expect(retryDelayMs(headers({ 'X-RateLimit-Reset': String(NOW / 1000 + 30) }), NOW, 1000)).toBe(
      30_000,
    );
    expect(retryDelayMs(headers({}), NOW, 4000)).toBe(4000);
  });
  it('never asks for less than 100 ms, so a past reset cannot cause a tight loop', () => {
    expect(retryDelayMs(headers({ 'X-RateLimit-Reset': String(NOW / 1000 - 30) }), NOW, 1000)).toBe(
      100,
    );
    expect(retryDelayMs(headers({ 'Retry-After': '0' }), NOW, 1000)).toBe(100);
  });
});
