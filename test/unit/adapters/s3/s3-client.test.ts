import { createS3Client, objectKey } from '../../../../src/adapters/s3/client';
import { normalizeEtag } from '../../../../src/adapters/s3/etag';

describe('S3 client helpers', () => {
  it('names objects {prefix}{YYYYMMDDHHmm}.pmtiles', () => {
    expect(objectKey('', '202401011200')).toBe('202401011200.pmtiles');
    expect(objectKey('radar/conus/', '202401011200')).toBe('radar/conus/202401011200.pmtiles');
  });

  it('normalises S3 ETags to the quoted form', () => {
    expect(normalizeEtag('abc')).toBe('"abc"');
    expect(normalizeEtag('"abc"')).toBe('"abc"');
    expect(normalizeEtag('&quot;abc-2&quot;')).toBe('"abc-2"');
  });

  it('rejects an endpoint with a path, and closes idempotently', () => {
    const settings = { accessKey: 'a', secretKey: 'b', region: 'us-east-1' };
    expect(() =>
      createS3Client({ ...settings, endpoint: 'http://minio:9000/bucket' }, { timeoutMs: 100 }),
    ).toThrow(/path/);
    const client = createS3Client(
      { ...settings, endpoint: 'https://minio.example:9000' },
      { timeoutMs: 100 },
    );
    expect(client.sockets()).toEqual({ busy: 0, idle: 0 });
    client.close();
    client.close();
  });
});
