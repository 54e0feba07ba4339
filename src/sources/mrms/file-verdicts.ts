/**
 * The MRMS follower's book of files: which are settled (published, found published, refused),
 * kept in memory for the passes of this process and, through a {@link FileVerdictStore}, across
 * restarts. A conversion is recorded as begun before it starts and as ended after, so a file
 * whose conversion never ended (it killed the process) is refused once it has done so
 * {@link CRASHES_BEFORE_REFUSAL} times, instead of killing every producer that takes it up.
 * A refusal holds for one version of a file: a file refused while still being written is
 * tried again once its version changes.
 */
import type { FeedFile, FileVerdict, FileVerdictStore } from '../../domain/producer-ports';

/** Conversions of one file that may begin without ending before it is refused. */
export const CRASHES_BEFORE_REFUSAL = 2;

/** Settles a key for every version (a published file never needs converting again). */
const ANY_VERSION = Symbol('any version');

/** Verdicts kept in memory only (no Redis, archives in a bucket): they last the process. */
export function createMemoryFileVerdicts(): FileVerdictStore {
  const all = new Map<string, FileVerdict>();
  return {
    get: async (key) => all.get(key),
    set: async (key, verdict) => void all.set(key, verdict),
    delete: async (key) => void all.delete(key),
    retain: async (keep) => {
      for (const key of all.keys()) if (!keep.has(key)) all.delete(key);
    },
  };
}

export interface FileBook {
  /** True when `file` needs nothing more from this process. */
  settled(file: FeedFile): boolean;
  /** `file` is published (or found published): settled for every version. */
  published(file: FeedFile): Promise<void>;
  /** `file` is refused (`reason` says why) in this version, here and in the store. */
  refuse(file: FeedFile, reason: string): Promise<void>;
  /**
   * Before a conversion: the stored refusal of this version (`fresh` false: already counted),
   * or the refusal it earns now by having killed {@link CRASHES_BEFORE_REFUSAL} conversions
   * (`fresh` true); otherwise records one more conversion begun and resolves `undefined`.
   */
  begin(file: FeedFile): Promise<{ reason: string; fresh: boolean } | undefined>;
  /** After a conversion that neither published nor refused the file (a retried failure). */
  end(file: FeedFile): Promise<void>;
  /** Forgets files no longer listed, in memory and in the store. */
  retain(listed: readonly FeedFile[]): Promise<void>;
}

export function createFileBook(store: FileVerdictStore): FileBook {
  const done = new Map<string, string | typeof ANY_VERSION | undefined>();
  return {
    settled(file) {
      if (!done.has(file.key)) return false;
      const version = done.get(file.key);
      return version === ANY_VERSION || version === file.version;
    },
    async published(file) {
      done.set(file.key, ANY_VERSION);
      await store.delete(file.key);
    },
    async refuse(file, reason) {
      done.set(file.key, file.version);
      const before = await store.get(file.key);
      await store.set(file.key, {
        version: file.version,
        attempts: before?.attempts ?? 0,
        refused: reason,
      });
    },
    async begin(file) {
      const before = await store.get(file.key);
      const same = before !== undefined && before.version === file.version;
      if (same && before.refused !== undefined) {
        done.set(file.key, file.version);
        return { reason: before.refused, fresh: false };
      }
      const attempts = same ? before.attempts : 0;
      if (attempts >= CRASHES_BEFORE_REFUSAL) {
        const reason = `${attempts} conversions of it never ended (the process died: out of memory or killed)`;
        done.set(file.key, file.version);
        await store.set(file.key, { version: file.version, attempts, refused: reason });
        return { reason, fresh: true };
      }
      await store.set(file.key, { version: file.version, attempts: attempts + 1 });
      return undefined;
    },
    async end(file) {
      await store.delete(file.key);
    },
    async retain(listed) {
      const keys = new Set(listed.map((f) => f.key));
      for (const key of done.keys()) if (!keys.has(key)) done.delete(key);
      await store.retain(keys);
    },
  };
}
