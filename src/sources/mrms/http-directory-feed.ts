/**
 * An HTTP(S) directory listing as the follower's feed, such as NOAA's MRMS product directory
 * (`https://mrms.ncep.noaa.gov/data/2D/ReflectivityAtLowestAltitude/`): the index page is
 * fetched, its links read (`sources/mrms/directory-listing.ts`), and the product's files among
 * them fetched one at a time. Node's own `fetch`; every request is bounded in time and size.
 */
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { FeedFileError, type FeedFile, type FileFeed } from '../../domain/producer-ports';
import { linkFileName, listingLinks, MAX_LISTING_BYTES } from './directory-listing';
import { readBounded } from '../../shared/read-bounded';
import { feedFile, newestFirst } from './mrms-file-name';

export interface HttpDirectoryFeedOptions {
  /** The directory's URL, ending in `/`. */
  readonly url: string;
  readonly productLevel: string;
  /** The longest a request may take, headers and body. */
  readonly timeoutMs: number;
}

/** An answer other than 200 (and 404/410 for a file): the server may recover, so it is retried. */
class HttpStatusError extends Error {
  override readonly name = 'HttpStatusError';
  constructor(
    readonly url: string,
    readonly status: number,
  ) {
    super(`GET ${url} answered ${status}`);
  }
}

/** The body of `response`, failing past `maxBytes` (or a declared length past it) unread. */
async function boundedBody(
  response: Response,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return Buffer.alloc(0);
  // Node's fetch answers with Node's web streams, which are async iterable (the DOM types
  // the compiler knows say nothing of it).
  const body = response.body as unknown as NodeReadableStream<Uint8Array>;
  return readBounded(body, maxBytes, tooLarge);
}

export function createHttpDirectoryFeed(options: HttpDirectoryFeedOptions): FileFeed {
  const { url, productLevel, timeoutMs } = options;
  const get = (target: string) =>
    fetch(target, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });

  return {
    describe: `directory listing ${url}`,
    async newest(count) {
      const response = await get(url);
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new HttpStatusError(url, response.status);
      }
      const html = (
        await boundedBody(
          response,
          MAX_LISTING_BYTES,
          () => new Error(`the listing at ${url} exceeds ${MAX_LISTING_BYTES} bytes`),
        )
      ).toString('utf8');
      const files: FeedFile[] = [];
      for (const link of await listingLinks(html, url)) {
        const file = feedFile(link, linkFileName(link), productLevel);
        if (file) files.push(file);
      }
      return newestFirst(files).slice(0, count);
    },
    async read(file, maxBytes) {
      const response = await get(file.key);
      if (response.status === 404 || response.status === 410) {
        await response.body?.cancel();
        throw new FeedFileError(file.key, 'missing', `the server answered ${response.status}`);
      }
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new HttpStatusError(file.key, response.status);
      }
      return boundedBody(
        response,
        maxBytes,
        () => new FeedFileError(file.key, 'too-large', `more than ${maxBytes} bytes`),
      );
    },
  };
}
