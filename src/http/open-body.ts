/**
 * Opens the bytes of a GET response from the archive store, tied to the response: a client
 * that leaves early aborts the store read (aborting a finished response would cost a
 * DOMException each, so only an unfinished one aborts). Shared by the archive and tile routes.
 */
import type { Context } from 'koa';
import type { ArchiveBody, ArchiveMeta, ArchiveStore, ByteWindow } from '../domain/ports';
import type { Caller } from './middleware/authenticate';

export function openResponseBody(
  ctx: Context,
  store: ArchiveStore,
  meta: ArchiveMeta,
  window: ByteWindow,
): Promise<ArchiveBody> {
  const abort = new AbortController();
  const res = ctx.res;
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const caller = ctx.state.caller as Caller | undefined;
  return store.openRange(meta, window, abort.signal, { keyId: caller?.keyId, address: ctx.ip });
}
