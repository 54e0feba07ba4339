import { HOUR_MS } from '../../../src/domain/usage';
import { createUsageMeter } from '../../../src/serving/usage-meter';

const H = 493_000; // an hour bucket (2026-03-30T16:00Z)

function clock(start = H * HOUR_MS + 60_000) {
  let t = start;
  return { now: () => t, set: (ms: number) => void (t = ms) };
}

describe('usage meter', () => {
  it('counts requests, bytes, statuses and routes per key and hour', () => {
    const c = clock();
    const meter = createUsageMeter({ maxEntries: 100, now: c.now });
    meter.count('acme', '/tiles/:timestamp.pmtiles', 206, 16384);
    meter.count('acme', '/tiles/:timestamp.pmtiles', 206, 100);
    meter.count('acme', '/status.json', 304, 0);
    meter.count('acme', '/status.json', 429, 0);
    meter.count('other', '/status.json', 200, 321);
    expect(meter.take()).toEqual([
      {
        keyId: 'acme',
        hour: H,
        counts: {
          requests: 4,
          bytes: 16484,
          'status:206': 2,
          'status:304': 1,
          'status:429': 1,
          'route:/tiles/:timestamp.pmtiles': 2,
          'route-bytes:/tiles/:timestamp.pmtiles': 16484,
          'route:/status.json': 2,
        },
      },
      {
        keyId: 'other',
        hour: H,
        counts: {
          requests: 1,
          bytes: 321,
          'status:200': 1,
          'route:/status.json': 1,
          'route-bytes:/status.json': 321,
        },
      },
    ]);
  });

  it('takes each count once: a take zeroes what it returns', () => {
    const meter = createUsageMeter({ maxEntries: 100, now: clock().now });
    meter.count('acme', '/status.json', 200, 10);
    expect(meter.take()).toHaveLength(1);
    expect(meter.take()).toEqual([]);
    meter.count('acme', '/status.json', 200, 10);
    expect(meter.take()).toEqual([
      {
        keyId: 'acme',
        hour: H,
        counts: {
          requests: 1,
          bytes: 10,
          'status:200': 1,
          'route:/status.json': 1,
          'route-bytes:/status.json': 10,
        },
      },
    ]);
  });

  it('keeps the counts of an hour that ended until they are taken, apart from the next hour', () => {
    const c = clock();
    const meter = createUsageMeter({ maxEntries: 100, now: c.now });
    meter.count('acme', '/status.json', 200, 1);
    c.set((H + 1) * HOUR_MS + 5);
    meter.count('acme', '/status.json', 200, 2);
    meter.count('acme', '/status.json', 200, 2);
    const taken = meter.take();
    expect(taken.map((e) => [e.hour, e.counts.requests, e.counts.bytes])).toEqual([
      [H, 1, 1],
      [H + 1, 2, 4],
    ]);
    expect(meter.size()).toBe(1);
  });

  it('reuses a key’s cell once taken, and forgets idle cells of past hours', () => {
    const c = clock();
    const meter = createUsageMeter({ maxEntries: 100, now: c.now });
    meter.count('acme', '/status.json', 200, 1);
    meter.take();
    c.set((H + 1) * HOUR_MS);
    meter.count('acme', '/status.json', 200, 1); // the same cell, moved to the new hour
    expect(meter.size()).toBe(1);
    expect(meter.take()[0]!.hour).toBe(H + 1);
    c.set((H + 2) * HOUR_MS);
    meter.take();
    expect(meter.size()).toBe(0);
  });

  it('holds at most maxEntries key-hours: a new one past it is dropped, held ones keep counting', () => {
    const meter = createUsageMeter({ maxEntries: 2, now: clock().now });
    meter.count('a', '/status.json', 200, 1);
    meter.count('b', '/status.json', 200, 1);
    meter.count('c', '/status.json', 200, 1);
    meter.count('c', '/status.json', 200, 1);
    meter.count('a', '/status.json', 200, 1);
    expect(meter.size()).toBe(2);
    expect(meter.takeDropped()).toBe(2);
    expect(meter.takeDropped()).toBe(0);
    expect(meter.take().map((e) => [e.keyId, e.counts.requests])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
  });

  it('a sealed hour counts against the bound until it is taken', () => {
    const c = clock();
    const meter = createUsageMeter({ maxEntries: 2, now: c.now });
    meter.count('a', '/status.json', 200, 1);
    c.set((H + 1) * HOUR_MS);
    meter.count('a', '/status.json', 200, 1); // seals hour H, opens H+1: 2 held
    meter.count('b', '/status.json', 200, 1); // a third key-hour: dropped
    expect(meter.size()).toBe(2);
    expect(meter.takeDropped()).toBe(1);
    expect(meter.take()).toHaveLength(2);
    meter.count('b', '/status.json', 200, 1);
    expect(meter.takeDropped()).toBe(0);
  });

  it('grows a cell that meets a field it has not seen (many statuses and routes)', () => {
    const meter = createUsageMeter({ maxEntries: 10, now: clock().now });
    for (let i = 0; i < 40; i++) meter.count('acme', `/route-${i}`, 200 + i, 1);
    const [entry] = meter.take();
    expect(entry!.counts.requests).toBe(40);
    expect(entry!.counts['status:239']).toBe(1);
    expect(entry!.counts['route-bytes:/route-39']).toBe(1);
    expect(Object.keys(entry!.counts)).toHaveLength(2 + 40 + 80);
  });

  it('adds bytes exactly past 2^32', () => {
    const meter = createUsageMeter({ maxEntries: 10, now: clock().now });
    for (let i = 0; i < 3; i++) meter.count('acme', '/tiles/:timestamp.pmtiles', 200, 2 ** 32 + 1);
    expect(meter.take()[0]!.counts.bytes).toBe(3 * (2 ** 32 + 1));
  });
});
