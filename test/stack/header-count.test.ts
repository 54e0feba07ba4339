/**
 * A request with more header fields than the server accepts is answered 431 with the error
 * record, over a real socket (Node's parser used to keep the first 1,000 fields and drop the
 * rest without a word: an `Authorization` after them made a 401). Up to the limit, every field
 * counts, the last one included. Refused before the rate limit: no point, no usage.
 */
import { auth, startEmbeddedApiWith, type EmbeddedApi } from '../harness/embedded-api';
import { buildRequest, rawExchange } from '../harness/raw-socket';
import { recentTimestamp } from '../harness/timestamps';
import { sparseArchive } from '../harness/tile-conformance';
import { MAX_HEADER_FIELDS } from '../../src/http/core/protocol';

const TS = recentTimestamp(3);
let api: EmbeddedApi;
beforeAll(async () => {
  api = await startEmbeddedApiWith(TS, sparseArchive(TS));
});
afterAll(() => api?.stop());

/**
 * `/status.json` with `fields` header fields in all (buildRequest adds `Host` first and
 * `Connection` last), the credentials just before `Connection`.
 */
async function statusWith(fields: number) {
  const credentials = Object.entries(auth());
  const padding = Array.from(
    { length: fields - credentials.length - 2 },
    (_, i) => [`X-P${i}`, '1'] as const,
  );
  const head = buildRequest('GET', '/status.json', [...padding, ...credentials]);
  const outcome = await rawExchange(api.replica.port, head);
  if (outcome.kind !== 'response') throw new Error(`no response: ${outcome.kind}`);
  return outcome.response;
}

it('past the limit: 431 with the error record, not a 401 from a dropped Authorization', async () => {
  const res = await statusWith(MAX_HEADER_FIELDS + 1);
  expect(res.status).toBe(431);
  expect(JSON.parse(res.body.toString())).toEqual({
    error: { code: 431, message: 'Request Header Fields Too Large' },
  });
  expect(res.header('x-ratelimit-remaining')).toBeUndefined();
});

it('at the limit every field counts, the last one included', async () => {
  const res = await statusWith(MAX_HEADER_FIELDS);
  expect(res.status).toBe(200);
});
