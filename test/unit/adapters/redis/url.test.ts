import {
  describeRedisTarget,
  parseRedisUrl,
  RedisUrlError,
} from '../../../../src/adapters/redis/url';

describe('parseRedisUrl', () => {
  it('leaves standalone URLs to ioredis', () => {
    expect(parseRedisUrl('redis://:secret@cache:6380/2')).toEqual({
      kind: 'standalone',
      url: 'redis://:secret@cache:6380/2',
      hosts: [{ host: 'cache', port: 6380 }],
    });
    expect(parseRedisUrl('rediss://cache')).toMatchObject({
      kind: 'standalone',
      hosts: [{ host: 'cache', port: 6379 }],
    });
  });

  it('reads Sentinel URLs: sentinels, master name, db, credentials', () => {
    expect(
      parseRedisUrl(
        'redis+sentinel://app:p%40ss@s1:26380,s2,[::1]:26381/mymaster/3?sentinelPassword=sp&sentinelUsername=su',
      ),
    ).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26380 },
        { host: 's2', port: 26379 },
        { host: '::1', port: 26381 },
      ],
      masterName: 'mymaster',
      db: 3,
      tls: false,
      username: 'app',
      password: 'p@ss',
      sentinelUsername: 'su',
      sentinelPassword: 'sp',
    });
    expect(parseRedisUrl('rediss+sentinel://:pw@s1/m')).toEqual({
      kind: 'sentinel',
      sentinels: [{ host: 's1', port: 26379 }],
      masterName: 'm',
      db: 0,
      tls: true,
      password: 'pw',
    });
  });

  it('reads Cluster URLs: seed nodes and credentials', () => {
    expect(parseRedisUrl('redis+cluster://n1:7000,n2:7001,n3')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'n1', port: 7000 },
        { host: 'n2', port: 7001 },
        { host: 'n3', port: 6379 },
      ],
      tls: false,
    });
    expect(parseRedisUrl('rediss+cluster://u:p@n1:7000')).toMatchObject({
      tls: true,
      username: 'u',
      password: 'p',
    });
  });

  it.each([
    ['http://cache:6379', /must start with/],
    ['redis://a:1,b:2', /several hosts/],
    ['redis+sentinel://s1:26379', /masterName/],
    ['redis+sentinel://s1/m/x', /database/],
    ['redis+sentinel://s1/m?foo=1', /unknown parameter foo/],
    ['redis+cluster://n1:7000/0', /no database/],
    ['redis+cluster://n1:99999', /host\[:port\]/],
    ['redis+cluster://', /no host/],
  ])('rejects %s', (url, message) => {
    expect(() => parseRedisUrl(url)).toThrow(RedisUrlError);
    expect(() => parseRedisUrl(url)).toThrow(message);
  });

  it('never puts credentials into error messages or descriptions', () => {
    expect(() => parseRedisUrl('redis+sentinel://u:topsecret@s1')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('topsecret') }),
    );
    const target = parseRedisUrl('redis+cluster://u:topsecret@n1:7000,n2:7001');
    expect(describeRedisTarget(target)).toBe('cluster n1:7000,n2:7001');
    expect(describeRedisTarget(parseRedisUrl('redis://:topsecret@cache'))).toBe(
      'standalone cache:6379',
    );
  });
});
