/**
 * Usage counts in a JSON file (embedded mode, or any deployment without Redis): by default
 * `usage.json` beside the key file. Each batch is merged into the file and written atomically
 * (temp file + rename), so a reader (the key CLI) never sees half a file and a crash leaves the
 * last complete one. The file remembers the highest batch number applied per source, as the
 * Redis store does, and drops hours past the retention at every write.
 *
 * One process writes the file: batches of two processes writing the same file at once could
 * overwrite each other's merge (without Redis, give each replica its own `RADAR_USAGE_FILE`).
 * A file that is not a valid usage file is never overwritten: the writer moves it aside
 * (`usage.json.invalid-<time>`), logs it, and starts a new one; a reader refuses it. The store
 * keeps the data it last wrote or read and reads the file again only when its stat changed.
 */
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import { z } from 'zod';
import type { UsageRank, UsageStore } from '../../domain/usage-ports';
import {
  addCounts,
  HOUR_MS,
  hourLabel,
  isUsageCounts,
  parseHourLabel,
  REQUESTS_FIELD,
  type UsageCounts,
  type UsageEntry,
} from '../../domain/usage';
import type { Logger } from '../../logger';
import { writeFileAtomic } from './atomic-write';
import { isMissingFile } from './read-errors';

/** A usage file that cannot be read as one. */
export class UsageFileError extends Error {
  override readonly name = 'UsageFileError';
}

const countsSchema = z.custom<UsageCounts>(isUsageCounts, 'counts must be non-negative integers');
const fileSchema = z.strictObject({
  version: z.literal(1),
  applied: z.record(
    z.string(),
    z.strictObject({ seq: z.number().int().nonnegative(), at: z.number() }),
  ),
  hours: z.record(
    z.string().refine((label) => parseHourLabel(label) !== undefined, 'hour must be YYYYMMDDHH'),
    z.record(z.string(), countsSchema),
  ),
});
type UsageFileData = z.infer<typeof fileSchema>;

const empty = (): UsageFileData => ({ version: 1, applied: {}, hours: {} });

export interface FileUsageStoreOptions {
  readonly file: string;
  /** Days an hour's counts are kept after the hour ends. */
  readonly retentionDays: number;
  readonly logger: Logger;
  readonly now?: () => number;
}

/** Parses a usage file's text; throws `UsageFileError` naming the first problem. */
export function parseUsageFile(text: string, file: string): UsageFileData {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageFileError(`usage file ${file} is not JSON: ${(err as Error).message}`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageFileError(
      `usage file ${file} is invalid: ${issue.path.join('.') || '(document)'}: ${issue.message}`,
    );
  }
  return parsed.data;
}

/** The usage store in `file`; a missing file reads as no usage and is created by the first batch. */
export function createFileUsageStore(options: FileUsageStoreOptions): UsageStore {
  const { file, logger } = options;
  const now = options.now ?? Date.now;
  const keepMs = options.retentionDays * 86_400_000;
  let writing: Promise<void> = Promise.resolve();

  /**
   * The file as last written or read here, with the stat it had then. This process is the
   * file's only writer, so a flush or a scrape reuses it while the stat still matches (inode,
   * size and mtime) instead of reading and validating the whole file again; a file replaced,
   * edited or removed by someone else no longer matches and is read again.
   */
  let known: { data: UsageFileData; stat: Stats } | undefined;
  const matches = (a: Stats, b: Stats) =>
    a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;

  /** The file's data; undefined when it does not exist. Throws `UsageFileError`. */
  const load = async (): Promise<UsageFileData | undefined> => {
    let text: string;
    let stat: Stats;
    try {
      // Stat before reading: the text read is then at least as new as the stat kept with it,
      // so a change this read missed still shows in the next stat.
      stat = await fs.stat(file);
      if (known !== undefined && matches(known.stat, stat)) return known.data;
      known = undefined;
      text = await fs.readFile(file, 'utf8');
    } catch (err) {
      if (isMissingFile(err)) {
        known = undefined;
        return undefined;
      }
      throw err;
    }
    const data = parseUsageFile(text, file);
    known = { data, stat };
    return data;
  };

  /** The data to merge into: the file's, or a fresh start when the file is not valid. */
  const loadForWrite = async (): Promise<UsageFileData> => {
    try {
      return (await load()) ?? empty();
    } catch (err) {
      if (!(err instanceof UsageFileError)) throw err;
      const aside = `${file}.invalid-${new Date(now()).toISOString().replace(/[:.]/g, '-')}`;
      await fs.rename(file, aside);
      logger.error({ err: err.message, movedTo: aside }, 'usage: invalid usage file moved aside');
      return empty();
    }
  };

  const write = async (data: UsageFileData): Promise<void> => {
    known = undefined; // `data` is changed until the write succeeds
    const stat = await writeFileAtomic(file, `${JSON.stringify(data)}\n`);
    known = { data, stat };
  };

  const prune = (data: UsageFileData): void => {
    const cutoff = now() - keepMs;
    for (const label of Object.keys(data.hours)) {
      const hour = parseHourLabel(label)!;
      if ((hour + 1) * HOUR_MS < cutoff) delete data.hours[label];
    }
    for (const [source, { at }] of Object.entries(data.applied))
      if (at < cutoff) delete data.applied[source];
  };

  const entriesOf = (
    data: UsageFileData | undefined,
    fromHour: number,
    toHour: number,
  ): UsageEntry[] => {
    const entries: UsageEntry[] = [];
    for (const [label, keys] of Object.entries(data?.hours ?? {})) {
      const hour = parseHourLabel(label)!;
      if (hour < fromHour || hour > toHour) continue;
      for (const [keyId, counts] of Object.entries(keys))
        entries.push({ keyId, hour, counts: { ...counts } }); // the kept data stays private
    }
    return entries;
  };

  return {
    apply(batch) {
      const run = async () => {
        const data = await loadForWrite();
        if (batch.seq <= (data.applied[batch.source]?.seq ?? 0)) return;
        for (const entry of batch.entries) {
          const hour = (data.hours[hourLabel(entry.hour)] ??= {});
          const counts: Record<string, number> = { ...hour[entry.keyId] };
          addCounts(counts, entry.counts);
          hour[entry.keyId] = counts;
        }
        data.applied[batch.source] = { seq: batch.seq, at: now() };
        prune(data);
        await write(data);
      };
      writing = writing.then(run, run);
      return writing;
    },
    async read(fromHour, toHour, keyIds) {
      const entries = entriesOf(await load(), fromHour, toHour);
      if (keyIds === undefined) return entries;
      const wanted = new Set(keyIds);
      return entries.filter((e) => wanted.has(e.keyId));
    },
    async top(hour, n): Promise<UsageRank[]> {
      return entriesOf(await load(), hour, hour)
        .map((e) => ({ keyId: e.keyId, requests: e.counts[REQUESTS_FIELD] ?? 0 }))
        .sort((a, b) => b.requests - a.requests || (a.keyId < b.keyId ? -1 : 1))
        .slice(0, n);
    },
    async close() {
      await writing.catch(() => undefined);
    },
  };
}
