/**
 * Opens the bytes a GET answer sends from the archive store: a window the cache holds comes
 * back at once as a Buffer (no abort signal, no promise); otherwise a store read tied to the
 * request, so a client that leaves early cancels it, and owned by the caller's key and
 * address, so one client cannot take every store connection. Shared by the archive and tile
 * answers.
 */
import type { ArchiveBody, ArchiveMeta, ArchiveStore, ByteWindow } from '../../domain/ports';
import type { Caller } from './authorise';
import type { CoreRequest } from './request';

export function openBody(
  store: ArchiveStore,
  meta: ArchiveMeta,
  window: ByteWindow,
  request: CoreRequest,
  caller: Caller,
): ArchiveBody | Promise<ArchiveBody> {
  const cached = store.readCached?.(meta, window);
  if (cached !== undefined) return cached;
  return store.openRange(meta, window, request.signal(), {
    keyId: caller.keyId,
    address: request.clientAddress(),
  });
}
