import {
  decodeCatalogEvent,
  encodePublishEvent,
  decodeMetaHash,
  metaToHashFields,
  timestampScore,
} from '../../../../src/adapters/redis/catalog-codec';
import type { ArchiveMeta } from '../../../../src/domain/ports';

const meta: ArchiveMeta = {
  timestamp: '202405011200',
  size: 123456,
  etag: '"abc"',
  lastModified: new Date(1714564807000),
};
const NOW = Date.UTC(2024, 4, 1, 12, 10);
const hashOf = (m: ArchiveMeta) => {
  const fields = metaToHashFields(m);
  const hash: Record<string, string> = {};
  for (let i = 0; i < fields.length; i += 2) hash[fields[i]!] = fields[i + 1]!;
  return hash;
};

describe('Redis catalog codec', () => {
  it('scores a timestamp with its epoch seconds', () => {
    expect(timestampScore('202405011200')).toBe(Date.UTC(2024, 4, 1, 12, 0) / 1000);
    expect(timestampScore('202413011200')).toBeUndefined();
  });

  it('round-trips metadata through the hash fields', () => {
    const fields = metaToHashFields(meta);
    const hash: Record<string, string> = {};
    for (let i = 0; i < fields.length; i += 2) hash[fields[i]!] = fields[i + 1]!;
    expect(hash).toEqual({ size: '123456', etag: '"abc"', lastModified: '1714564807000' });
    expect(decodeMetaHash(meta.timestamp, hash, NOW)).toEqual({ ok: true, meta });
  });

  it.each([
    [{}, 'missing-metadata'],
    [{ size: '-5', etag: '"a"', lastModified: '1' }, 'bad-size'],
    [{ size: '126', etag: '"a"', lastModified: '1' }, 'bad-size'],
    [{ size: '1.5e3', etag: '"a"', lastModified: '1' }, 'bad-size'],
    [{ size: ' 300', etag: '"a"', lastModified: '1' }, 'bad-size'],
    [{ size: '9007199254740993', etag: '"a"', lastModified: '1' }, 'bad-size'],
    [{ size: '300', etag: '', lastModified: '1' }, 'bad-etag'],
    [{ size: '300', etag: 'abc', lastModified: '1' }, 'bad-etag'],
    [{ size: '300', etag: 'W/"abc"', lastModified: '1' }, 'bad-etag'],
    [{ size: '300', etag: '"ab\r\nSet-Cookie: x=1"', lastModified: '1' }, 'bad-etag'],
    [{ size: '300', etag: '"a b"', lastModified: '1' }, 'bad-etag'],
    [{ size: '300', etag: `"${'a'.repeat(300)}"`, lastModified: '1' }, 'bad-etag'],
    [{ size: '300', etag: '"a"', lastModified: 'yesterday' }, 'bad-last-modified'],
    [{ size: '300', etag: '"a"', lastModified: '0' }, 'bad-last-modified'],
    [{ size: '300', etag: '"a"', lastModified: '999999999999999' }, 'bad-last-modified'],
  ])('refuses a malformed hash %j (%s)', (hash, reason) => {
    expect(decodeMetaHash(meta.timestamp, hash as Record<string, string>, NOW)).toEqual({
      ok: false,
      reason,
    });
  });

  it.each([
    ['999912312359', 'future-timestamp'],
    ['202405011216', 'future-timestamp'],
    ['202402301200', 'bad-timestamp'],
    ['latest', 'bad-timestamp'],
  ])('refuses the member %s (%s) whatever its hash', (member, reason) => {
    expect(decodeMetaHash(member, hashOf(meta), NOW)).toEqual({ ok: false, reason });
  });

  it('accepts a timestamp up to 5 minutes ahead (clock skew)', () => {
    expect(decodeMetaHash('202405011215', hashOf(meta), NOW).ok).toBe(true);
  });

  it('round-trips publish events and refuses one with a header-breaking ETag', () => {
    expect(decodeCatalogEvent(encodePublishEvent(meta), NOW)).toEqual({ type: 'publish', meta });
    const bad = encodePublishEvent({ ...meta, etag: '"a\r\nX: y"' });
    expect(decodeCatalogEvent(bad, NOW)).toBeUndefined();
  });

  it('reads prune events as the Lua script writes them (cjson: empty list is {})', () => {
    expect(
      decodeCatalogEvent('{"timestamps":["202405011200","202405011202"],"type":"prune"}', NOW),
    ).toEqual({
      type: 'prune',
      timestamps: ['202405011200', '202405011202'],
    });
    expect(decodeCatalogEvent('{"type":"prune","timestamps":{}}', NOW)).toEqual({
      type: 'prune',
      timestamps: [],
    });
  });

  it.each([
    '',
    'null',
    '[]',
    '{"type":"other"}',
    '{"type":"publish","timestamp":"2024"}',
    '{"type":"prune","timestamps":[1]}',
  ])('ignores an unreadable event %s', (message) => {
    expect(decodeCatalogEvent(message, NOW)).toBeUndefined();
  });
});
