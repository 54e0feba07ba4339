/**
 * A `pmtiles` {@link Source} for one published archive that sends its range requests through
 * the {@link RadarTransport}, so every request carries `Authorization` and `X-App`, counts in
 * the rate-limit state and waits out a 429. pmtiles' own `FetchSource` can add headers but
 * would bypass the rate-limit handling, hence this small wrapper.
 */
import { EtagMismatch, type RangeResponse, type Source } from 'pmtiles';
import { framePathStem } from './frame-paths';
import type { RadarTransport } from './transport';

/**
 * Service path of a frame's archive: `/tiles/{timestamp}.pmtiles` for an observed timestamp,
 * `/forecasts/{base}/{lead}.pmtiles` for a forecast frame key (`forecast-{base}-{LLL}`).
 */
export function archivePath(timestamp: string): string {
  return `${framePathStem(timestamp)}.pmtiles`;
}

/**
 * The source of `timestamp`'s archive (an observed timestamp or a forecast frame key). Its key is the archive's absolute URL, so a MapLibre
 * style can name it as `pmtiles://{url}`. Published archives never change, so a changed strong
 * ETag raises pmtiles' `EtagMismatch` (pmtiles then reloads the header once).
 *
 * The first read (offset 0, pmtiles asks for 16 KiB) is kept: the service's archives hold the
 * header, the root directory and the metadata in it, so a later read inside it (the metadata,
 * which pmtiles fetches on its own for attribution, or a small tile) is answered from memory
 * instead of spending another request of the key's rate limit.
 */
export function createArchiveSource(transport: RadarTransport, timestamp: string): Source {
  const path = archivePath(timestamp);
  const key = transport.url(path);
  /** The answer to the last read at offset 0, whose bytes later reads inside it reuse. */
  let head: RangeResponse | undefined;

  const fetchBytes = async (
    offset: number,
    length: number,
    signal: AbortSignal | undefined,
    etag: string | undefined,
  ): Promise<RangeResponse> => {
    const response = await transport.get(path, {
      headers: { Range: `bytes=${offset}-${offset + length - 1}` },
      signal,
    });
    let newEtag = response.headers.get('ETag') ?? undefined;
    if (newEtag?.startsWith('W/')) newEtag = undefined;
    if (etag && newEtag && newEtag !== etag) {
      head = undefined;
      await response.body?.cancel().catch(() => undefined);
      throw new EtagMismatch(`archive ${timestamp} changed: ETag ${etag} -> ${newEtag}`);
    }
    let data = await response.arrayBuffer();
    // 200 means the whole archive came back (a range was ignored): cut out what was asked.
    if (response.status === 200 && data.byteLength > length)
      data = data.slice(offset, offset + length);
    return {
      data,
      etag: newEtag,
      cacheControl: response.headers.get('Cache-Control') ?? undefined,
      expires: response.headers.get('Expires') ?? undefined,
    };
  };

  return {
    getKey: () => key,
    async getBytes(offset, length, signal, etag): Promise<RangeResponse> {
      // Offset 0 is the header read, also pmtiles' reload after a changed ETag: always fetched.
      if (offset === 0) {
        head = await fetchBytes(offset, length, signal, etag);
        return head;
      }
      const kept = head;
      if (
        kept !== undefined &&
        offset + length <= kept.data.byteLength &&
        (etag === undefined || etag === kept.etag)
      ) {
        return { ...kept, data: kept.data.slice(offset, offset + length) };
      }
      return fetchBytes(offset, length, signal, etag);
    },
  };
}
