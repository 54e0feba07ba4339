/**
 * Opens the bytes of a GET response from the archive store, tied to the response: a client
 * that leaves early aborts the store read (aborting a finished response would cost a
 * DOMException each, so only an unfinished one aborts). A window the cache holds is answered
 * from memory at once, without an abort signal or a promise. Shared by the archive and tile
 * routes.
 */
import type { Context } from 'koa';
import type { ArchiveBody, ArchiveMeta, ArchiveStore, ByteWindow } from '../domain/ports';
import type { Caller } from './middleware/authenticate';

export function openResponseBody(
  ctx: Context,
  store: ArchiveStore,
  meta: ArchiveMeta,
  window: ByteWindow,
): ArchiveBody | Promise<ArchiveBody> {
  // Bytes already in memory: nothing to abort, nothing to wait for.
  const cached = store.readCached?.(meta, window);
  if (cached !== undefined) return cached;
  const abort = new AbortController();
  const res = ctx.res;
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const caller = ctx.state.caller as Caller | undefined;
  return store.openRange(meta, window, abort.signal, { keyId: caller?.keyId, address: ctx.ip });
}
