/** Tallies: counts kept in memory reach their prom-client counters at every scrape. */
import { Counter, Gauge, Registry } from 'prom-client';
import { createTallies } from '../../src/observability/tally';

it('adds pending counts to the counter when the registry is scraped, and only once', async () => {
  const registry = new Registry();
  const tallies = createTallies();
  const counter = new Counter({
    name: 'x_total',
    help: 'x',
    labelNames: ['route'] as const,
    registers: [registry],
    collect: tallies.flush,
  });
  let inFlight = 0;
  const gauge = new Gauge({ name: 'y', help: 'y', registers: [registry], collect: tallies.flush });
  tallies.onScrape(() => gauge.set(inFlight));
  const a = tallies.counter(counter, { route: '/a' });
  a.add();
  a.add(4);
  inFlight = 3;
  expect(await registry.metrics()).toMatch(/x_total\{route="\/a"\} 5\n[\s\S]*y 3\n/);
  a.add();
  expect(await registry.metrics()).toMatch(/x_total\{route="\/a"\} 6\n/);
  expect(await registry.metrics()).toMatch(/x_total\{route="\/a"\} 6\n/);
});
