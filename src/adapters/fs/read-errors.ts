/**
 * The data directory's boundary: errno codes become the core's archive errors here, so ingest
 * and the HTTP layer never read an errno. A missing file is `ArchiveNotFoundError` (what an S3
 * `NoSuchKey` becomes too); a refused one `access-denied`; any other errno a disk fault of that
 * one file (`io-error`).
 */
import {
  ArchiveNotFoundError,
  ArchiveReadError,
  type ArchiveReadReason,
} from '../../domain/archive-errors';

const MISSING = new Set(['ENOENT', 'ENOTDIR']);
const ACCESS_DENIED = new Set(['EACCES', 'EPERM']);

function errnoCode(err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True when the file (or a directory on its path) does not exist. */
export function isMissingFile(err: unknown): boolean {
  return MISSING.has(errnoCode(err) ?? '');
}

/** The reason an errno means for one file's read. */
export function fsReadReason(code: string | undefined): ArchiveReadReason {
  return code !== undefined && ACCESS_DENIED.has(code) ? 'access-denied' : 'io-error';
}

/** Translates an error reading or removing file `name` into the core's archive errors. */
export function translateFsError(name: string, err: unknown): Error {
  if (isMissingFile(err)) return new ArchiveNotFoundError(name, { cause: err });
  const code = errnoCode(err);
  const message = err instanceof Error ? err.message : String(err);
  return new ArchiveReadError(fsReadReason(code), `${name}: ${message}`, { cause: err });
}
