/**
 * Requests that Node's HTTP parser itself refuses, before Koa sees them: raw NUL, control or
 * non-ASCII bytes in the target, lower-case or unknown methods, control bytes in header
 * values, malformed header names, heads over the 16 KiB limit, conflicting framing headers,
 * unknown HTTP versions, a target not in origin form, HTTP/1.1 without Host, an Expect Node
 * cannot meet. Every error answer is the JSON error record and every response carries
 * `X-Content-Type-Options: nosniff`, so these must be answered like any other error (400,
 * or 408/413/414/431 with their RFC reason phrase), never a 5xx, never a hang, and the
 * replica must keep serving afterwards.
 */
import fc from 'fast-check';
import { auth } from '../harness/embedded-api';
import { useHostileApi } from '../harness/fuzz/hostile-api-fixture';
import { checkProperty } from '../harness/fuzz/fuzz-run';
import { SMALL_TS } from '../harness/fuzz/hostile-api';
import { checkOutcome, InvariantViolation } from '../harness/fuzz/invariants';
import { buildRequest, rawExchange } from '../harness/raw-socket';

jest.setTimeout(120_000);

const api = useHostileApi('parser.test.ts');

const credentials = Object.entries(auth()) as Array<[string, string]>;
const tile = `/tiles/${SMALL_TS}.pmtiles`;
const bytesOf = (...parts: Array<string | Buffer>) =>
  Buffer.concat(parts.map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(p, 'latin1'))));

/** Named kinds of request the parser refuses, each as request bytes. */
const KINDS: ReadonlyArray<readonly [string, Buffer]> = [
  ['NUL in the target', buildRequest('GET', `/tiles/${SMALL_TS}\0.pmtiles`, credentials)],
  [
    'raw UTF-8 in the target',
    buildRequest(
      'GET',
      bytesOf('/tiles/', Buffer.from('２０２６٣', 'utf8'), '.pmtiles'),
      credentials,
    ),
  ],
  ['a space in the target', buildRequest('GET', '/tiles/2026 01151200.pmtiles', credentials)],
  ['lower-case method', buildRequest('get', tile, credentials)],
  ['unknown method', buildRequest('BREW', tile, credentials)],
  [
    'control byte in a header value',
    buildRequest('GET', tile, [...credentials, ['Range', 'bytes=0-1\x01']]),
  ],
  [
    'space before the colon of a header name',
    bytesOf(
      'GET ',
      tile,
      ' HTTP/1.1\r\nHost: x\r\nAuthorization : Bearer k\r\nConnection: close\r\n\r\n',
    ),
  ],
  [
    'header line without a colon',
    bytesOf(
      'GET ',
      tile,
      ' HTTP/1.1\r\nHost: x\r\nAuthorization Bearer k\r\nConnection: close\r\n\r\n',
    ),
  ],
  [
    'head over 16 KiB (one header)',
    buildRequest('GET', tile, [...credentials, ['X-Pad', 'a'.repeat(17 * 1024)]]),
  ],
  [
    'head over 16 KiB (long target)',
    buildRequest('GET', `/tiles/${'a/'.repeat(9000)}${SMALL_TS}.pmtiles`, credentials),
  ],
  [
    'conflicting Content-Length',
    buildRequest('GET', tile, [...credentials, ['Content-Length', '1'], ['Content-Length', '2']]),
  ],
  [
    'Content-Length and Transfer-Encoding',
    bytesOf(
      buildRequest('POST', tile, [
        ['Content-Length', '3'],
        ['Transfer-Encoding', 'chunked'],
      ]),
      '0\r\n\r\n',
    ),
  ],
  ['HTTP/2.0 request line', buildRequest('GET', tile, credentials, { version: 'HTTP/2.0' })],
  ['a target not in origin form', buildRequest('GET', `tiles/${SMALL_TS}.pmtiles`, credentials)],
  ['a backslash target', buildRequest('GET', `\\tiles\\${SMALL_TS}.pmtiles`, credentials)],
  [
    'HTTP/1.1 without Host',
    bytesOf('GET ', tile, ' HTTP/1.1\r\nAuthorization: Bearer k\r\nConnection: close\r\n\r\n'),
  ],
  [
    'an Expect other than 100-continue',
    buildRequest('GET', tile, [...credentials, ['Expect', 'the-unexpected']]),
  ],
  ['the HTTP/2 connection preface', bytesOf('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n')],
  ['HTTP/0.9 request line', bytesOf('GET ', tile, '\r\n\r\n')],
];

async function expectStillServing(): Promise<void> {
  const bytes = buildRequest('GET', '/status.json', credentials);
  const outcome = await rawExchange(api().port, bytes);
  if (outcome.kind !== 'response' || outcome.response.status !== 200) {
    throw new InvariantViolation('the replica stopped serving after a refused request');
  }
}

it.each(KINDS)(
  '%s: answered with the error record and nosniff, then the replica keeps serving',
  async (name, bytes) => {
    api().resetSpies();
    const res = checkOutcome(
      api(),
      bytes,
      await rawExchange(api().port, bytes, { method: 'GET', timeoutMs: 5000 }),
      { method: 'GET' },
    );
    // RFC 9110 §10.1.1: an unmet expectation MAY be answered 417 or simply ignored.
    if (!name.startsWith('an Expect')) {
      expect(res!.status).toBeGreaterThanOrEqual(400);
      expect(api().storeCalls).toEqual([]);
    }
    await expectStillServing();
  },
);

it('generated refused requests: error record, nosniff, no 5xx, no hang, no store read', async () => {
  const ctl = fc
    .integer({ min: 0, max: 31 })
    .filter((c) => c !== 9 && c !== 10 && c !== 13)
    .map((c) => String.fromCharCode(c));
  const nonAscii = fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 6 })
    .filter((s) => [...s].some((c) => c.codePointAt(0)! > 0x7f));
  const injected = fc.oneof(ctl, fc.constant('\x7f'), nonAscii, fc.constant(' '));
  const tokenChars = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'.split(''));
  const caseArb = fc.oneof(
    // A byte the target may not carry, at a random place in a real archive path.
    fc.tuple(injected, fc.integer({ min: 1, max: tile.length - 1 })).map(([bad, at]) => ({
      method: 'GET',
      bytes: buildRequest(
        'GET',
        bytesOf(tile.slice(0, at), Buffer.from(bad, 'utf8'), tile.slice(at)),
        credentials,
      ),
    })),
    // Methods outside Node's table or not upper-case.
    fc
      .oneof(
        fc.constantFrom(
          'get',
          'Get',
          'head',
          'options',
          'post',
          'trace',
          'propfind',
          'connect',
          'gEt',
        ),
        fc
          .string({ unit: tokenChars, minLength: 1, maxLength: 12 })
          .map((s) => s.toUpperCase())
          .filter(
            (m) =>
              ![
                'GET',
                'HEAD',
                'POST',
                'PUT',
                'DELETE',
                'PATCH',
                'OPTIONS',
                'TRACE',
                'COPY',
                'LOCK',
                'MOVE',
                'BIND',
                'LINK',
                'PURGE',
                'MERGE',
                'REPORT',
                'SEARCH',
                'NOTIFY',
                'UNLOCK',
                'UNBIND',
                'UNLINK',
                'SOURCE',
                'ACL',
                'PRI',
                'QUERY',
                'MKCOL',
                'REBIND',
                'CHECKOUT',
                'SUBSCRIBE',
                'UNSUBSCRIBE',
                'MKACTIVITY',
                'MKCALENDAR',
                'PROPFIND',
                'PROPPATCH',
                'CONNECT',
                'DESCRIBE',
                'ANNOUNCE',
                'SETUP',
                'PLAY',
                'PAUSE',
                'TEARDOWN',
                'RECORD',
                'REDIRECT',
                'FLUSH',
              ].includes(m),
          ),
      )
      .map((method) => ({ method: 'GET', bytes: buildRequest(method, tile, credentials) })),
    // A control byte inside a header value.
    fc
      .tuple(ctl, fc.constantFrom('Authorization', 'X-App', 'Range', 'If-None-Match', 'X-Other'))
      .map(([bad, name]) => ({
        method: 'GET',
        bytes: buildRequest('GET', tile, [
          ...credentials.filter(([n]) => n !== name),
          [name, `Bearer a${bad}b`],
        ]),
      })),
    // Heads past 16 KiB, made of one value, many headers, or a long target.
    fc.integer({ min: 16 * 1024 + 1, max: 64 * 1024 }).chain((size) =>
      fc.constantFrom(
        {
          method: 'GET',
          bytes: buildRequest('GET', tile, [...credentials, ['X-Pad', 'p'.repeat(size)]]),
        },
        {
          method: 'GET',
          bytes: buildRequest('GET', tile, [
            ...credentials,
            ...Array.from({ length: Math.ceil(size / 30) }, (_, i): [string, string] => [
              `X-H${i}`,
              'v'.repeat(32),
            ]),
          ]),
        },
        {
          method: 'GET',
          bytes: buildRequest(
            'GET',
            `/tiles/${'%2e'.repeat(Math.ceil(size / 3))}.pmtiles`,
            credentials,
          ),
        },
      ),
    ),
  );
  await checkProperty('refused requests', 250, caseArb, async ({ method, bytes }) => {
    api().resetSpies();
    checkOutcome(api(), bytes, await rawExchange(api().port, bytes, { method, timeoutMs: 5000 }), {
      method,
    });
  });
  await expectStillServing();
});
