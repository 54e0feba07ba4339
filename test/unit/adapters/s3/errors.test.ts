/**
 * The S3 error boundary as a table, for the codes s3rver cannot produce (access denied,
 * archive tiers, SSE-C, throttling, 5xx). The codes it can produce (NoSuchKey, NoSuchBucket, a
 * refused connection) are checked against s3rver in test/stack/s3-archive-source.test.ts.
 */
import { s3ReadReason, translateS3Error } from '../../../../src/adapters/s3/errors';
import { RangeMismatchError } from '../../../../src/adapters/s3/range-response';
import { S3TimeoutError } from '../../../../src/adapters/s3/client';
import {
  ArchiveNotFoundError,
  ArchiveReadError,
  StoreUnavailableError,
} from '../../../../src/domain/archive-errors';
import { classifyReadFailure } from '../../../../src/ingest/read-failure';

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

it.each([
  [coded('NoSuchKey'), 'not-found'],
  [coded('NotFound'), 'not-found'],
  [Object.assign(new Error('gone'), { statusCode: 404 }), 'not-found'],
  [coded('AccessDenied', 'Access Denied.'), 'access-denied'],
  [coded('AllAccessDisabled'), 'access-denied'],
  [Object.assign(new Error('forbidden'), { status: 403 }), 'access-denied'],
  [coded('InvalidObjectState', 'not in active tier'), 'archived'],
  [coded('ObjectNotInActiveTierError'), 'archived'],
  [
    coded('InvalidRequest', 'The object was stored using a form of Server Side Encryption'),
    'encrypted',
  ],
  [new RangeMismatchError('etag', 'ETag "a", expected "b"'), 'bad-response'],
  [coded('InvalidArgument'), 'bad-response'],
  [coded('EPROTO'), 'io-error'],
  [coded('ECONNREFUSED', 'connect ECONNREFUSED'), 'store'],
  [coded('ECONNRESET'), 'store'],
  [new S3TimeoutError(2000), 'store'],
  [coded('SlowDown'), 'store'],
  [coded('InternalError'), 'store'],
  [coded('NoSuchBucket'), 'store'],
  [Object.assign(new Error('bad gateway'), { statusCode: 502 }), 'store'],
])('%s means %s, and ingest reads the same from the core type', (err, reason) => {
  expect(s3ReadReason(err)).toBe(reason);
  const translated = translateS3Error('202406011200.pmtiles', err);
  expect(translated.cause).toBe(err);
  const type =
    reason === 'not-found'
      ? ArchiveNotFoundError
      : reason === 'store'
        ? StoreUnavailableError
        : ArchiveReadError;
  expect(translated).toBeInstanceOf(type);
  expect(classifyReadFailure(translated)).toBe(reason);
});

it('ingest reads no S3 code: an untranslated coded error is only a bad response', () => {
  expect(classifyReadFailure(coded('AccessDenied'))).toBe('bad-response');
  expect(classifyReadFailure(coded('ECONNREFUSED'))).toBe('bad-response');
});
