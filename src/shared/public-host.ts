/**
 * A host a public URL may name: a DNS name, an IPv4 address or a bracketed IPv6 literal,
 * optionally with a port of 1-65535. Used for the configured public hosts and for the hosts
 * read from requests, so both follow one rule. The result is canonical, so a document names
 * one URL for one host however a client spelt it: lower case, and the port as a number
 * (`08080` is `8080`). A bracketed literal must be a real IPv6 address (`[::::]` is not), so a
 * document never names a URL no client can open.
 */
import { isIPv6 } from 'node:net';

const HOST =
  /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63})*|\[([0-9A-Fa-f:.]+)\])(?::([0-9]{1,5}))?$/;

/**
 * Whether `literal` (inside the brackets of an IP-literal host) is an IPv6 address. The core's
 * `Host` check calls this rather than `node:net` itself, so the core imports no transport
 * module (the layers test holds it to that).
 */
export function isIpv6Literal(literal: string): boolean {
  return isIPv6(literal);
}

/** `host[:port]` in canonical form when it is a usable public host, else undefined. */
export function publicHost(value: string | undefined): string | undefined {
  if (value === undefined || value.length > 255) return undefined;
  const found = HOST.exec(value);
  if (found === null) return undefined;
  const [, name, literal, port] = found;
  if (literal !== undefined && !isIpv6Literal(literal)) return undefined;
  if (port === undefined) return name!.toLowerCase();
  const number = Number(port);
  if (number < 1 || number > 65535) return undefined;
  return `${name!.toLowerCase()}:${number}`;
}
