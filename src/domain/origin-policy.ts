/**
 * Per-key allowed web origins, as map vendors offer for browser keys (MapTiler, Mapbox,
 * Google): a key may list exact origins (`https://maps.example.com`) and subdomain wildcards
 * (`https://*.example.com`, which matches `https://a.example.com` and `https://a.b.example.com`
 * but not `https://example.com`), and may require that a request names its origin at all.
 *
 * This stops a key copied out of one web page from working in another site's page (browsers
 * always send `Origin` on cross-origin requests and pages cannot forge it). It does not stop
 * a determined non-browser client, which can send any header it likes.
 */

/** One allowed-origin pattern as written in the key store, checked at parse time. */
const EXACT =
  /^(https?):\/\/([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::([0-9]{1,5}))?$/;
const WILDCARD =
  /^(https?):\/\/\*\.([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+)(?::([0-9]{1,5}))?$/;

/**
 * Why `pattern` is not a valid allowed origin, or undefined when it is. Patterns are written in
 * the serialised-origin form browsers send: lower case, scheme and host, a port only when it
 * is not the scheme's default, no path and no trailing slash.
 */
export function originPatternProblem(pattern: string): string | undefined {
  const exact = EXACT.exec(pattern);
  const wildcard = exact ? undefined : WILDCARD.exec(pattern);
  const match = exact ?? wildcard;
  if (!match) {
    return `"${pattern}" is not an origin (scheme://host[:port], lower case, no path) or a https://*.domain wildcard`;
  }
  const [, scheme, , port] = match;
  if (port !== undefined) {
    const n = Number(port);
    if (n < 1 || n > 65535 || String(n) !== port) return `"${pattern}" has an invalid port`;
    if ((scheme === 'https' && n === 443) || (scheme === 'http' && n === 80)) {
      return `"${pattern}" names the default port; browsers send the origin without it`;
    }
  }
  return undefined;
}

/** The decision for one request's origin. */
export interface OriginPolicy {
  /** `origin` is the request's origin (from `Origin`, else `Referer`), or undefined for none. */
  allows(origin: string | undefined): boolean;
}

/** Everything allowed: keys without restrictions. */
export const ANY_ORIGIN: OriginPolicy = { allows: () => true };

/**
 * Compiles a key's patterns (already validated) into a policy. No patterns means any origin;
 * `requireOrigin` additionally refuses requests that name none (server-side clients).
 */
export function createOriginPolicy(
  patterns: readonly string[] | undefined,
  requireOrigin: boolean | undefined,
): OriginPolicy {
  const list = patterns ?? [];
  if (list.length === 0 && !requireOrigin) return ANY_ORIGIN;
  const exact = new Set<string>();
  const suffixes: Array<{ prefix: string; suffix: string }> = [];
  for (const pattern of list) {
    const wildcard = WILDCARD.exec(pattern);
    if (wildcard) {
      const [, scheme, domain, port] = wildcard;
      suffixes.push({ prefix: `${scheme}://`, suffix: `.${domain}${port ? `:${port}` : ''}` });
    } else {
      exact.add(pattern);
    }
  }
  return {
    allows(origin) {
      if (origin === undefined) return !requireOrigin;
      if (list.length === 0) return true;
      const normalised = origin.toLowerCase();
      if (exact.has(normalised)) return true;
      return suffixes.some(
        ({ prefix, suffix }) =>
          normalised.startsWith(prefix) &&
          normalised.endsWith(suffix) &&
          // At least one non-empty label before the domain, and nothing but a host there.
          /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/.test(
            normalised.slice(prefix.length, normalised.length - suffix.length),
          ),
      );
    },
  };
}

/**
 * The origin a request names: its `Origin` header, else the origin of its `Referer`
 * (same-origin GETs and `<img>` loads send no `Origin`). Returns undefined when neither is
 * sent, and `'null'` (which matches no pattern) when a header is present but names no origin
 * (`Origin: null` from sandboxed pages and file: URLs, or an unparsable Referer).
 */
export function requestOrigin(
  originHeader: string | undefined,
  refererHeader: string | undefined,
): string | undefined {
  if (originHeader !== undefined && originHeader !== '') return originHeader.trim();
  if (refererHeader === undefined || refererHeader === '') return undefined;
  try {
    const origin = new URL(refererHeader).origin;
    return origin === 'null' ? 'null' : origin;
  } catch {
    return 'null';
  }
}
