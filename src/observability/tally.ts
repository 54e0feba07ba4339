/**
 * Request-path counts kept as plain numbers and added to their prom-client counters when the
 * registry is scraped. A prom-client `inc` validates and hashes its labels on every call (about
 * a microsecond each, several per request); a tally is one addition. Every metric a tally
 * feeds gets `collect: tallies.flush`, so each scrape sees every count up to that moment.
 */
import type { Counter, LabelValues } from 'prom-client';

export interface Tally {
  add(n?: number): void;
}

export interface Tallies {
  /** A count for one series of `counter` (fixed labels), added to it at the next scrape. */
  counter<L extends string>(counter: Counter<L>, labels?: LabelValues<L>): Tally;
  /** Runs `fn` at every scrape (e.g. to set a gauge from a number kept in memory). */
  onScrape(fn: () => void): void;
  /** Adds every pending count to its counter; the `collect` of each metric a tally feeds. */
  readonly flush: () => void;
}

export function createTallies(): Tallies {
  const flushes: Array<() => void> = [];
  return {
    counter(counter, labels) {
      let pending = 0;
      flushes.push(() => {
        if (pending === 0) return;
        if (labels === undefined) counter.inc(pending);
        else counter.inc(labels, pending);
        pending = 0;
      });
      return {
        add(n = 1) {
          pending += n;
        },
      };
    },
    onScrape: (fn) => void flushes.push(fn),
    flush: () => {
      for (const fn of flushes) fn();
    },
  };
}
