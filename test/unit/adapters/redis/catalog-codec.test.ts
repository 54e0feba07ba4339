import {
  decodeCatalogEvent,
  encodePublishEvent,
  metaFromHash,
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
    expect(metaFromHash(meta.timestamp, hash)).toEqual(meta);
  });

  it.each([
    [{}],
    [{ size: '-1', etag: '"a"', lastModified: '1' }],
    [{ size: '1.5', etag: '"a"', lastModified: '1' }],
    [{ size: '10', etag: '', lastModified: '1' }],
    [{ size: '10', etag: '"a"', lastModified: 'yesterday' }],
  ])('refuses a malformed hash %j', (hash) => {
    expect(metaFromHash(meta.timestamp, hash as Record<string, string>)).toBeUndefined();
  });

  it('round-trips publish events', () => {
    expect(decodeCatalogEvent(encodePublishEvent(meta))).toEqual({ type: 'publish', meta });
  });

  it('reads prune events as the Lua script writes them (cjson: empty list is {})', () => {
    expect(
      decodeCatalogEvent('{"timestamps":["202405011200","202405011202"],"type":"prune"}'),
    ).toEqual({
      type: 'prune',
      timestamps: ['202405011200', '202405011202'],
    });
    expect(decodeCatalogEvent('{"type":"prune","timestamps":{}}')).toEqual({
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
    expect(decodeCatalogEvent(message)).toBeUndefined();
  });
});
