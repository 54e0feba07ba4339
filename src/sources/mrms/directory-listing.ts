/**
 * The links of an HTTP directory listing (the index page a web server such as NOAA's MRMS
 * server writes for a directory: a table or `<pre>` of `<a href="...">` links, one per file,
 * plus sorting links and the parent directory). Only the `href` values are read, so the
 * page's layout may change freely; what counts as a file of the feed is decided by its name.
 */

/** The largest index page read: NOAA's product directories list a day of files in well under 1 MiB. */
export const MAX_LISTING_BYTES = 8 * 1024 * 1024;

const HREF = /<a\s[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))/gi;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === '#') {
      const code =
        entity[1] === 'x' || entity[1] === 'X'
          ? parseInt(entity.slice(2), 16)
          : parseInt(entity.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000
        ? String.fromCodePoint(code)
        : whole;
    }
    return ENTITIES[entity.toLowerCase()] ?? whole;
  });
}

/**
 * Absolute URLs of the files the listing at `pageUrl` links to, in page order, each once:
 * links resolved against the page, kept only when they stay on the page's origin and inside
 * its directory (a hostile or broken page cannot send the follower elsewhere), without query
 * or fragment links (column sorting) and without sub-directories.
 */
export function listingLinks(html: string, pageUrl: string): string[] {
  const base = new URL(pageUrl);
  const directory = base.pathname.endsWith('/')
    ? base.pathname
    : base.pathname.slice(0, base.pathname.lastIndexOf('/') + 1);
  const seen = new Set<string>();
  for (const m of html.matchAll(HREF)) {
    const raw = decodeEntities(m[1] ?? m[2] ?? m[3] ?? '').trim();
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
