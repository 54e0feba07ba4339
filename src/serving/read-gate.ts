/**
 * Bounds what one API key and one client address may hold open against the archive store at
 * once (S3 sockets, file descriptors). Without it a few hundred clients that ask for a large
 * archive and never read take every pooled store connection, and everyone else's uncached reads
 * queue behind them. A read over its owner's share is refused at once with `StoreBusyError`
 * (503 with `Retry-After`); reads without an owner (cache fills, warming) are not counted.
 * A slot is held from the open until the returned stream closes.
 */
import { StoreBusyError } from '../domain/archive-errors';
import type { ArchiveStore } from '../domain/ports';

export interface ReadGateLimits {
  /** Open reads one API key may hold (all its clients together). */
  readonly perKey: number;
  /** Open reads one client address may hold. */
  readonly perAddress: number;
}

export interface GatedArchiveStore extends ArchiveStore {
  /** Open reads now, per owner kind; for tests and metrics. */
  held(): { readonly keys: number; readonly addresses: number };
}

function createCounter(limit: number) {
  const counts = new Map<string, number>();
  return {
    full: (id: string) => (counts.get(id) ?? 0) >= limit,
    take: (id: string) => counts.set(id, (counts.get(id) ?? 0) + 1),
    give: (id: string) => {
      const left = (counts.get(id) ?? 1) - 1;
      if (left <= 0) counts.delete(id);
      else counts.set(id, left);
    },
    total: () => [...counts.values()].reduce((sum, n) => sum + n, 0),
  };
}

/** Wraps `store` so each owner's open reads stay within `limits`. */
export function createReadGate(store: ArchiveStore, limits: ReadGateLimits): GatedArchiveStore {
  const keys = createCounter(limits.perKey);
  const addresses = createCounter(limits.perAddress);
  return {
    async openRange(meta, window, signal, owner) {
      if (owner === undefined) return store.openRange(meta, window, signal);
      const { keyId, address } = owner;
      if (keyId !== undefined && keys.full(keyId)) throw new StoreBusyError('key');
      if (address !== undefined && addresses.full(address)) throw new StoreBusyError('client');
      if (keyId !== undefined) keys.take(keyId);
      if (address !== undefined) addresses.take(address);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        if (keyId !== undefined) keys.give(keyId);
        if (address !== undefined) addresses.give(address);
      };
      try {
        const body = await store.openRange(meta, window, signal, owner);
        if (Buffer.isBuffer(body) || body.destroyed) release();
        else body.once('close', release);
        return body;
      } catch (err) {
        release();
        throw err;
      }
    },
    held: () => ({ keys: keys.total(), addresses: addresses.total() }),
    probe: () => store.probe(),
    close: () => store.close(),
  };
}
