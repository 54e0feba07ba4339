/**
 * `REDIS_URL` parsing. One URL names any of the three deployments ioredis supports, so the
 * operator switches topology without new variables:
 *
 * - `redis://[user:pass@]host[:port][/db]`, `rediss://…` (TLS): one server, parsed by ioredis;
 * - `redis+sentinel://[user:pass@]h1[:p1],h2[:p2]/<masterName>[/db][?sentinelUsername=…&sentinelPassword=…]`
 *   (sentinel port defaults to 26379; user and password are the master's);
 * - `redis+cluster://[user:pass@]h1[:p1],h2[:p2]` (seed nodes, port defaults to 6379).
 *
 * The `rediss+` variants turn TLS on for the data connections (and for Sentinel itself).
 */

/** A host and port of a seed node or sentinel. */
export interface RedisHost {
  readonly host: string;
  readonly port: number;
}

/** Credentials for the data nodes (master, replicas or cluster nodes). */
export interface RedisAuth {
  readonly username?: string;
  readonly password?: string;
}

/** What a `REDIS_URL` designates, in terms ioredis options map onto directly. */
export type RedisTarget =
  | { readonly kind: 'standalone'; readonly url: string; readonly hosts: readonly RedisHost[] }
  | (RedisAuth & {
      readonly kind: 'sentinel';
      readonly sentinels: readonly RedisHost[];
      readonly masterName: string;
      readonly db: number;
      readonly tls: boolean;
      readonly sentinelUsername?: string;
      readonly sentinelPassword?: string;
    })
  | (RedisAuth & {
      readonly kind: 'cluster';
      readonly nodes: readonly RedisHost[];
      readonly tls: boolean;
    });

/** A `REDIS_URL` that cannot be used; the message says why and never contains the password. */
export class RedisUrlError extends Error {
  override readonly name = 'RedisUrlError';
}

const SCHEME = /^(rediss?)(\+sentinel|\+cluster)?:\/\/(.*)$/;

function parseHost(text: string, defaultPort: number): RedisHost {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(text);
  const host = match?.[1] ?? match?.[2];
  const port = match?.[3] === undefined ? defaultPort : Number(match[3]);
  if (host === undefined || port < 1 || port > 65535) {
    throw new RedisUrlError(`REDIS_URL: "${text}" is not a host[:port]`);
  }
  return { host, port };
}

function parseAuth(userinfo: string | undefined): RedisAuth {
  if (userinfo === undefined) return {};
  const colon = userinfo.indexOf(':');
  const user = decodeURIComponent(colon < 0 ? userinfo : userinfo.slice(0, colon));
  const password = colon < 0 ? undefined : decodeURIComponent(userinfo.slice(colon + 1));
  return {
    ...(user !== '' ? { username: user } : {}),
    ...(password !== undefined && password !== '' ? { password } : {}),
  };
}

function parseDb(text: string | undefined): number {
  if (text === undefined || text === '') return 0;
  if (!/^\d{1,2}$/.test(text))
    throw new RedisUrlError(`REDIS_URL: database "${text}" is not a number`);
  return Number(text);
}

/** Parses a `REDIS_URL`; throws `RedisUrlError` for anything it cannot use. */
export function parseRedisUrl(url: string): RedisTarget {
  const scheme = SCHEME.exec(url.trim());
  if (!scheme || scheme[1] === undefined || scheme[3] === undefined) {
    throw new RedisUrlError(
      'REDIS_URL: must start with redis://, rediss://, redis+sentinel:// or redis+cluster://',
    );
  }
  const tls = scheme[1] === 'rediss';
  const topology = scheme[2];
  const rest = scheme[3];
  const queryAt = rest.indexOf('?');
  const query = new URLSearchParams(queryAt < 0 ? '' : rest.slice(queryAt + 1));
  const beforeQuery = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const slash = beforeQuery.indexOf('/');
  const authority = slash < 0 ? beforeQuery : beforeQuery.slice(0, slash);
  const pathParts =
    slash < 0
      ? []
      : beforeQuery
          .slice(slash + 1)
          .split('/')
          .filter((p) => p !== '');
  const at = authority.lastIndexOf('@');
  const auth = parseAuth(at < 0 ? undefined : authority.slice(0, at));
  const hostList = (at < 0 ? authority : authority.slice(at + 1))
    .split(',')
    .filter((h) => h !== '');
  if (hostList.length === 0) throw new RedisUrlError('REDIS_URL: names no host');

  if (topology === undefined) {
    if (hostList.length > 1) {
      throw new RedisUrlError(
        'REDIS_URL: several hosts need redis+sentinel:// or redis+cluster://',
      );
    }
    return { kind: 'standalone', url: url.trim(), hosts: [parseHost(hostList[0] ?? '', 6379)] };
  }

  if (topology === '+cluster') {
    if (pathParts.length > 0)
      throw new RedisUrlError('REDIS_URL: a cluster has no database number or path');
    if ([...query.keys()].length > 0)
      throw new RedisUrlError('REDIS_URL: cluster URLs take no query parameters');
    return { kind: 'cluster', nodes: hostList.map((h) => parseHost(h, 6379)), tls, ...auth };
  }

  const [masterName, db, ...extra] = pathParts;
  if (masterName === undefined || extra.length > 0) {
    throw new RedisUrlError(
      'REDIS_URL: a Sentinel URL ends with /<masterName> or /<masterName>/<db>',
    );
  }
  for (const name of query.keys()) {
    if (name !== 'sentinelUsername' && name !== 'sentinelPassword') {
      throw new RedisUrlError(
        `REDIS_URL: unknown parameter ${name} (sentinelUsername, sentinelPassword)`,
      );
    }
  }
  const sentinelUsername = query.get('sentinelUsername') ?? undefined;
  const sentinelPassword = query.get('sentinelPassword') ?? undefined;
  return {
    kind: 'sentinel',
    sentinels: hostList.map((h) => parseHost(h, 26379)),
    masterName: decodeURIComponent(masterName),
    db: parseDb(db),
    tls,
    ...auth,
    ...(sentinelUsername !== undefined ? { sentinelUsername } : {}),
    ...(sentinelPassword !== undefined ? { sentinelPassword } : {}),
  };
}

/** A log-safe description of a target: topology and hosts, never credentials. */
export function describeRedisTarget(target: RedisTarget): string {
  const hosts = (list: readonly RedisHost[]) => list.map((h) => `${h.host}:${h.port}`).join(',');
  switch (target.kind) {
    case 'standalone':
      return `standalone ${hosts(target.hosts)}`;
    case 'sentinel':
      return `sentinel ${hosts(target.sentinels)} master ${target.masterName}`;
    case 'cluster':
      return `cluster ${hosts(target.nodes)}`;
  }
}
