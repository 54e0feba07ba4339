/**
 * A `Transfer-Encoding` whose final coding is not `chunked` (`identity`, `xchunked`,
 * `chunked, identity`) leaves a request's body length unknown (RFC 9112 §6.3): the replica
 * answers 400 with the error record at the protocol step, before credentials and the rate
 * limit (no point spent, no usage), instead of closing the connection with zero bytes.
 */
import { auth, startEmbeddedApiWith, type EmbeddedApi } from '../harness/embedded-api';
import { buildRequest, rawExchange } from '../harness/raw-socket';
import { recentTimestamp } from '../harness/timestamps';
import { sparseArchive } from '../harness/tile-conformance';

const TS = recentTimestamp(3);
let api: EmbeddedApi;
beforeAll(async () => {
  api = await startEmbeddedApiWith(TS, sparseArchive(TS));
});
afterAll(() => api?.stop());

it.each([['identity'], ['xchunked'], ['chunked, identity'], ['gzip']])(
  'Transfer-Encoding: %s is a 400 with the error record, no rate-limit point',
  async (codings) => {
    const head = buildRequest('GET', '/status.json', [
      ...Object.entries(auth()),
      ['Transfer-Encoding', codings],
    ]);
    const outcome = await rawExchange(api.replica.port, head, { timeoutMs: 5000 });
    expect(outcome.kind).toBe('response');
    if (outcome.kind !== 'response') return;
    expect(outcome.response.status).toBe(400);
    expect(JSON.parse(outcome.response.body.toString())).toEqual({
      error: { code: 400, message: 'Bad Request' },
    });
    expect(outcome.response.header('x-ratelimit-remaining')).toBeUndefined();
  },
);

it('Transfer-Encoding: chunked with an empty body is still served', async () => {
  const head = buildRequest('GET', '/status.json', [
    ...Object.entries(auth()),
    ['Transfer-Encoding', 'chunked'],
  ]);
  const outcome = await rawExchange(
    api.replica.port,
    Buffer.concat([head, Buffer.from('0\r\n\r\n')]),
    { timeoutMs: 5000 },
  );
  expect(outcome.kind === 'response' && outcome.response.status).toBe(200);
});
