/**
 * Ingest's check of an archive beyond its header: the root directory (inside the first 16 KiB
 * already read) and the metadata JSON (read when it lies past them, bounded) before an archive
 * is published, and every leaf directory as well when a replica reported the archive as
 * corrupt. Reads go through the cycle's per-object reader, so a failure to read one object is
 * isolated and retried like any other.
 */
import type { StoredObject } from '../domain/ports';
import type { Logger } from '../logger';
import {
  checkDirectory,
  leafDirectoryProblem,
  MAX_METADATA_BYTES,
  metadataProblem,
  type StructureRejectionReason,
} from '../pmtiles/archive-check';
import type { PmtilesHeader } from '../pmtiles/header';

/** Bytes of the object, or undefined after an isolated (counted, retried) read failure. */
export type ObjectReader = (offset: number, length: number) => Promise<Buffer | undefined>;

/**
 * What is wrong with the archive's structure (a rejection reason), undefined when it is sound,
 * or 'unreadable' when a read of the object failed (the cycle's reader has counted it).
 */
export type StructureCheck = (
  object: StoredObject,
  head: Buffer,
  header: PmtilesHeader,
  read: ObjectReader,
  deep: boolean,
) => Promise<StructureRejectionReason | 'unreadable' | undefined>;

/** Thrown through the leaf walk to stop it when a read failed; never escapes the check. */
class Unreadable extends Error {}

export function createStructureCheck(logger: Logger): StructureCheck {
  /** Logs the detail of a problem (the reason alone goes to metrics and the warning). */
  const note = (object: StoredObject, reason: StructureRejectionReason, detail: string) => {
    logger.info({ object: object.name, reason, detail }, 'archive structure check failed');
    return reason;
  };

  return async (object, head, header, read, deep) => {
    const rootStart = header.rootDirectoryOffset;
    const root = checkDirectory(
      head.subarray(rootStart, rootStart + header.rootDirectoryLength),
      header,
    );
    if (!root.ok) return note(object, 'bad-root-directory', root.detail);
    const { jsonMetadataOffset: offset, jsonMetadataLength: length } = header;
    if (length > MAX_METADATA_BYTES) return note(object, 'metadata-too-large', `${length} bytes`);
    const metadata =
      offset + length <= head.length
        ? head.subarray(offset, offset + length)
        : await read(offset, length);
    if (metadata === undefined) return 'unreadable';
    const problem = metadataProblem(metadata, header);
    if (problem !== undefined) return note(object, 'bad-metadata', problem);
    if (!deep) return undefined;
    try {
      const leafProblem = await leafDirectoryProblem(header, root.directory, async (at, size) => {
        const bytes = await read(at, size);
        if (bytes === undefined) throw new Unreadable();
        return bytes;
      });
      return leafProblem === undefined
        ? undefined
        : note(object, 'bad-leaf-directory', leafProblem);
    } catch (err) {
      if (err instanceof Unreadable) return 'unreadable';
      throw err;
    }
  };
}
