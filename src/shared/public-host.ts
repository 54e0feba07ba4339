/**
 * A host a public URL may name: a DNS name, an IPv4 address or a bracketed IPv6 literal,
 * optionally with a port of 1-65535. Used for the configured public hosts and for the hosts
 * read from requests, so both follow one rule.
 */

const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63})*|\[[0-9A-Fa-f:.]+\])(?::([0-9]{1,5}))?$/;

/** `host[:port]` lower-cased when it is a usable public host, else undefined. */
export function publicHost(value: string | undefined): string | undefined {
  if (value === undefined || value.length > 255) return undefined;
  const found = HOST.exec(value);
  if (found === null) return undefined;
  const port = found[1];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return undefined;
  return value.toLowerCase();
}
