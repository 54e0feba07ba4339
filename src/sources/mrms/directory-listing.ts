/**
 * The links of an HTTP directory listing (the index page a web server such as NOAA's MRMS
 * server writes for a directory: a table or `<pre>` of `<a href="...">` links, one per file,
 * plus sorting links and the parent directory). Only the `href` values are read, so the
 * page's layout may change freely; what counts as a file of the feed is decided by its name.
 *
 * The page comes from a server the producer does not control, so reading it must cost time in
 * proportion to its length whatever it holds: htmlparser2's tokenizer is a state machine that
 * visits each character once (a regular expression over tags backtracks, and a page of `<a `
 * repeated made one quadratic). The page is handed over in slices with a turn of the event
 * loop between them, so even the largest page accepted never blocks the loop for long.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Parser } from 'htmlparser2';

/** The largest index page read: NOAA's product directories list a day of files in well under 1 MiB. */
export const MAX_LISTING_BYTES = 8 * 1024 * 1024;

/** Characters tokenized between two turns of the event loop (a few milliseconds of work). */
export const LISTING_SLICE_CHARS = 64 * 1024;

/** Raw `href` values of the page's `<a>` elements, in page order, entities decoded. */
async function anchorHrefs(html: string, sliceChars: number): Promise<string[]> {
  const hrefs: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        const href = attributes['href'];
        if (name === 'a' && href !== undefined) hrefs.push(href);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  for (let at = 0; at < html.length; at += sliceChars) {
    if (at > 0) await nextTurn();
    parser.write(html.slice(at, at + sliceChars));
  }
  parser.end();
  return hrefs;
}

/**
 * Absolute URLs of the files the listing at `pageUrl` links to, in page order, each once:
 * links resolved against the page, kept only when they stay on the page's origin and inside
 * its directory (a hostile or broken page cannot send the follower elsewhere), without query
 * or fragment links (column sorting) and without sub-directories. Linear in the page's length;
 * yields to the event loop every `sliceChars` characters.
 */
export async function listingLinks(
  html: string,
  pageUrl: string,
  sliceChars = LISTING_SLICE_CHARS,
): Promise<string[]> {
  const base = new URL(pageUrl);
  const directory = base.pathname.endsWith('/')
    ? base.pathname
    : base.pathname.slice(0, base.pathname.lastIndexOf('/') + 1);
  const seen = new Set<string>();
  for (const href of await anchorHrefs(html, sliceChars)) {
    const raw = href.trim();
    if (raw === '' || raw.startsWith('?') || raw.startsWith('#')) continue;
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      continue;
    }
    if (url.origin !== base.origin || url.search !== '' || url.hash !== '') continue;
    if (!url.pathname.startsWith(directory) || url.pathname.endsWith('/')) continue;
    if (url.pathname.slice(directory.length).includes('/')) continue;
    seen.add(url.toString());
  }
  return [...seen];
}

/** The file name of a listing link (its last path segment, percent-decoded). */
export function linkFileName(url: string): string {
  const path = new URL(url).pathname;
  const last = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
