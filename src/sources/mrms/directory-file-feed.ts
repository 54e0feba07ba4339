/**
 * A local directory as the MRMS follower's feed: every `MRMS_{product}_{time}.grib2.gz` below
 * it, at any depth (a copy of NOAA's day folders, a mount, files dropped in by hand). Other
 * files, other products and hidden names (partial downloads) are left alone.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { FeedFileError, type FeedFile, type FileFeed } from '../../domain/producer-ports';
import { feedFile, newestFirst } from './mrms-file-name';
import { isMissingFile } from '../../adapters/fs/read-errors';

/** Reads `dir` recursively on every `newest`, so files added at any time are seen. */
export function createDirectoryFileFeed(options: {
  readonly dir: string;
  readonly productLevel: string;
}): FileFeed {
  const { dir, productLevel } = options;
  return {
    describe: `directory ${dir}`,
    async newest(count) {
      const entries = await fs.readdir(dir, { recursive: true, encoding: 'utf8' });
      const files: FeedFile[] = [];
      for (const relative of entries) {
        const name = path.basename(relative);
        if (name.startsWith('.')) continue;
        const file = feedFile(path.join(dir, relative), name, productLevel);
        if (file) files.push(file);
      }
      return newestFirst(files).slice(0, count);
    },
    async read(file, maxBytes) {
      let handle: fs.FileHandle;
      try {
        handle = await fs.open(file.key, 'r');
      } catch (error) {
        if (isMissingFile(error)) throw new FeedFileError(file.key, 'missing', 'the file is gone');
        throw error;
      }
      try {
        const { size } = await handle.stat();
        if (size > maxBytes)
          throw new FeedFileError(file.key, 'too-large', `${size} bytes exceed ${maxBytes}`);
        return await handle.readFile();
      } finally {
        await handle.close();
      }
    },
  };
}
