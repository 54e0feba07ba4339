/**
 * The MRMS producer's verdicts on feed files in one small JSON file (without Redis, where the
 * archives are a directory: `{dataDir}/.mrms-verdicts.json`, hidden so ingest ignores it),
 * replaced atomically on every change, so a file that killed the producer is not fetched
 * again after the restart. Changes are written one at a time, in order.
 */
import type { FileVerdict, FileVerdictStore } from '../../domain/producer-ports';
import { decodeVerdict, parseJson } from '../../shared/file-verdict-codec';
import { writeFileAtomic } from './atomic-write';
import { readIfExists } from '../../shared/read-if-exists';

/** The verdict file's name in the data directory. */
export const VERDICT_FILE_NAME = '.mrms-verdicts.json';

export function createFileVerdicts(file: string): FileVerdictStore {
  let verdicts: Map<string, FileVerdict> | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const load = async () => {
    if (verdicts) return verdicts;
    const text = await readIfExists(file);
    const parsed = text === undefined ? undefined : parseJson(text.toString('utf8'));
    verdicts = new Map();
    if (typeof parsed === 'object' && parsed !== null)
      for (const [key, value] of Object.entries(parsed)) {
        const verdict = decodeVerdict(value);
        if (verdict) verdicts.set(key, verdict);
      }
    return verdicts;
  };
  /** Runs `change` after every earlier one, then writes the file when it changed something. */
  const update = (change: (all: Map<string, FileVerdict>) => boolean) => {
    const next = queue.then(async () => {
      const all = await load();
      if (change(all)) await writeFileAtomic(file, JSON.stringify(Object.fromEntries(all)));
    });
    queue = next.catch(() => undefined);
    return next;
  };

  return {
    async get(key) {
      await queue;
      return (await load()).get(key);
    },
    set: (key, verdict) => update((all) => (all.set(key, verdict), true)),
    delete: (key) => update((all) => all.delete(key)),
    retain: (keep) =>
      update((all) => {
        let changed = false;
        for (const key of all.keys()) if (!keep.has(key)) changed = all.delete(key) || changed;
        return changed;
      }),
  };
}
