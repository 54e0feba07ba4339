/**
 * Hostile request targets against a real replica over a raw socket: timestamps and paths with
 * percent-encoding, `..`, `%2e%2e`, `%2F`, double encoding, backslashes, NUL, encoded
 * non-ASCII digits, query strings and fragments, absolute-form targets and very long paths
 * (up to just under Node's 16 KiB head limit; longer heads are in parser.test.ts). Targets are
 * printable ASCII here, as every client sends them (other bytes percent-encoded); raw bytes
 * that Node's parser refuses are in parser.test.ts.
 *
 * Beyond the response invariants: with valid credentials a GET is 200 (status document, an
 * archive or an archive's TileJSON), 400 or 404, never anything else; an archive is only ever served for a target
 * whose once-decoded form names that archive's timestamp; without credentials a known route
 * is 401 and anything else 404.
 */
import fc from 'fast-check';
import { auth } from '../harness/embedded-api';
import { useHostileApi } from '../harness/fuzz/hostile-api-fixture';
import { checkProperty } from '../harness/fuzz/fuzz-run';
import { ABSENT_TS, CORRUPT_TS, FUTURE_TS, LARGE_TS, SMALL_TS } from '../harness/fuzz/hostile-api';
import { checkOutcome, InvariantViolation } from '../harness/fuzz/invariants';
import { buildRequest, rawExchange, type RawHttpResponse } from '../harness/raw-socket';

jest.setTimeout(120_000);

const api = useHostileApi('paths.test.ts');

const credentials = Object.entries(auth()) as Array<[string, string]>;

const encodeAll = (s: string) =>
  [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
const encodeSome = (s: string, mask: number) =>
  [...s].map((c, i) => ((mask >> i) & 1 ? encodeAll(c) : c)).join('');

const odd = fc.constantFrom(
  '/tiles//',
  '//tiles/',
  '/TILES/',
  '/Tiles/',
  '/tiles/./',
  '/tiles/../tiles/',
  '/x/../tiles/',
  '/%74iles/',
  '/tiles%2F',
  '/tiles%2f',
  '/tiles\\',
  '/./tiles/',
  '/tiles/%2e/',
  '/tiles/%2E%2E/tiles/',
  '/status.json/../tiles/',
  '/',
  '/tiles/..%2Ftiles/',
  '/tiles;/',
  '/tiles/;/',
  '/api/tiles/',
  '/tiles%252F',
);
const prefix = fc.oneof(
  { weight: 3, arbitrary: fc.constant('/tiles/') },
  { weight: 2, arbitrary: odd },
);

const stamps = [SMALL_TS, LARGE_TS, CORRUPT_TS, FUTURE_TS, ABSENT_TS];
const segment = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...stamps) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...stamps), fc.integer({ min: 1, max: 4095 }))
      .map(([t, m]) => encodeSome(t, m)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(...stamps).map((t) => encodeAll(t).replace(/%/g, '%25')),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '202613011200',
      '202602301200',
      '202611222400',
      '202611221460',
      '000000000000',
      '999999999999',
      '2026011512',
      '2026011512000',
      '20260115120',
      '+20260115120',
      '-20260115120',
      '2026011512%200',
      '%EF%BC%92%EF%BC%90%EF%BC%92%EF%BC%96%EF%BC%90%EF%BC%91%EF%BC%91%EF%BC%95%EF%BC%91%EF%BC%92%EF%BC%90%EF%BC%90',
      '%D9%A2%D9%A0%D9%A2%D9%A6%D9%A0%D9%A1%D9%A1%D9%A5%D9%A1%D9%A2%D9%A0%D9%A0',
      '0x2026011512',
      '2.02601151200e11',
    ),
  },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '..',
      '%2e%2e',
      '%2E%2E',
      '%252e%252e',
      '..%2f',
      '..%2F..%2F',
      '..%5c',
      '..\\',
      '%2e%2e%2f',
      '%2e%2e/',
      './',
      '.',
      '%00',
      '%0a',
      '%0d%0a',
      '%ff',
      '%c0%ae%c0%ae',
      '%u002e%u002e',
      'secret',
      '../secret',
      '..%2Fsecret',
      `../${SMALL_TS}`,
      `..%2F${SMALL_TS}`,
      `..%252F${SMALL_TS}`,
      '.hidden',
      'notes',
      `${SMALL_TS}.pmtiles.bak`,
      '..%2F..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd',
      '%2e%2e%5c%2e%2e%5csecret',
      '~',
      `${SMALL_TS}%00`,
      `${SMALL_TS}%2F..`,
      `${SMALL_TS}/..`,
      `${SMALL_TS}%20`,
      ` ${SMALL_TS}`.replace(' ', '%20'),
      '*',
      '%',
      '%%',
      '%2',
      '%zz',
      '%e0%a4%a',
      'con',
      'aux',
      `${SMALL_TS};jsessionid=1`,
    ),
  },
  { weight: 2, arbitrary: fc.stringMatching(/^[0-9A-Za-z%._~!$&'()*+,;=:@\\-]{0,40}$/) },
);

const oddSuffix = fc.constantFrom(
  '.PMTILES',
  '.pmtiles/',
  '.pmtiles%00',
  '.pmtiles%2F',
  '.pmtiles.',
  '%2Epmtiles',
  '%2epmtiles',
  '.pmtile',
  '',
  '.json',
  '.pmtiles;x',
  '.pmtiles%20',
  '.pmtiles/..',
  '.pmtiles/../status.json',
  '.pmtiles\\',
  '.pmtiles..',
);
const suffix = fc.oneof(
  { weight: 3, arbitrary: fc.constant('.pmtiles') },
  { weight: 2, arbitrary: oddSuffix },
);

const query = fc.oneof(
  { weight: 6, arbitrary: fc.constant('') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '?',
      '?x=1',
      '?timestamp=..%2Fsecret',
      '?a=1&a=2',
      '?%00',
      '?../../',
      '#frag',
      '?#',
      '??',
      '?x=%ff',
      `?${'q'.repeat(2000)}`,
    ),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^\?[0-9A-Za-z%._~!$&'()*+,;=:@/?-]{0,60}$/) },
);

/** Repeats a segment to make very long paths (kept under Node's 16 KiB head limit). */
const longPath = fc
  .tuple(
    fc.constantFrom('../', '%2e%2e%2f', 'a/', '/', `${SMALL_TS}/`, '%2F'),
    fc.integer({ min: 100, max: 14_000 }),
  )
  .map(
    ([piece, length]) =>
      `/tiles/${piece.repeat(Math.ceil(length / piece.length)).slice(0, length)}${SMALL_TS}.pmtiles`,
  );

const absoluteForm = fc.constantFrom(
  `http://127.0.0.1/tiles/${SMALL_TS}.pmtiles`,
  'http://evil.example/status.json',
  `http://evil.example/../tiles/${SMALL_TS}.pmtiles`,
  'http://127.0.0.1:1/status.json?x',
  '*',
);

const target = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.tuple(prefix, segment, suffix, query).map((parts) => parts.join('')),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(prefix, segment, segment, suffix).map((parts) => parts.join('')),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          '/status.json',
          '/status%2Ejson',
          '/status.json/',
          '/./status.json',
          '/%73tatus.json',
          '/status.json%00',
          '/STATUS.JSON',
          '/status.json;',
          '//status.json',
          '/status.json\\',
        ),
        query,
      )
      .map((p) => p.join('')),
  },
  { weight: 1, arbitrary: longPath },
  { weight: 1, arbitrary: absoluteForm },
);

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function checkRouteOutcome(
  res: RawHttpResponse,
  request: Buffer,
  targetText: string,
  withCredentials: boolean,
): void {
  const problem = (what: string) => {
    throw new InvariantViolation(
      `${what}: ${res.status}\n  target: ${JSON.stringify(targetText.slice(0, 300))}`,
    );
  };
  if (!withCredentials) {
    if (res.status !== 401 && res.status !== 404)
      problem('without credentials the answer is 401 or 404');
    return;
  }
  if (![200, 400, 404].includes(res.status))
    problem('with credentials a GET/HEAD is 200, 400 or 404');
  if (res.status !== 200) return;
  const type = res.header('content-type') ?? '';
  if (type.startsWith('application/vnd.pmtiles')) {
    const served = [...api().archives].find(
      ([, bytes]) => bytes === api().byEtag.get(res.header('etag') ?? ''),
    )?.[0];
    const pathPart = targetText.split(/[?#]/)[0]!;
    if (!served || !safeDecode(pathPart).includes(served))
      problem(`archive ${served} served for a target that does not name it`);
  } else if (type.startsWith('application/json')) {
    if (res.body.length > 0) {
      const doc = JSON.parse(res.body.toString()) as Record<string, unknown>;
      if (doc.tilejson === '3.0.0') {
        // TileJSON of an archive: only for a target whose decoded form names its timestamp.
        const named = /\/tiles\/([0-9]{12})\//.exec(String((doc.tiles as string[])[0]))?.[1];
        const pathPart = targetText.split(/[?#]/)[0]!;
        if (!named || !api().archives.has(named) || !safeDecode(pathPart).includes(named))
          problem(`TileJSON of ${named} served for a target that does not name it`);
      } else if (Object.keys(doc).sort().join() !== 'forecasts,healthy,latest,timestamps')
        problem('200 JSON that is not the status document');
    }
  } else {
    problem(`200 with an unexpected Content-Type ${type}`);
  }
  void request;
}

it('every request target: invariants hold; only a target naming a published timestamp is served', async () => {
  const caseArb = fc.record({
    target,
    method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD'),
    withCredentials: fc.constantFrom(true, true, true, false),
  });
  const named = [
    `/tiles/..%2F${SMALL_TS}.pmtiles`,
    `/tiles/%2e%2e%2f${SMALL_TS}.pmtiles`,
    `/tiles/..%252F${SMALL_TS}.pmtiles`,
    '/tiles/..%2F..%2Fsecret',
    `/tiles/${CORRUPT_TS}.pmtiles`,
    `/tiles/${FUTURE_TS}.pmtiles`,
    `/tiles/${encodeAll(SMALL_TS)}.pmtiles`,
    `/tiles/${encodeAll(SMALL_TS).replace(/%/g, '%25')}.pmtiles`,
    `/tiles\\..\\${SMALL_TS}.pmtiles`,
    `/tiles/${SMALL_TS}%00.pmtiles`,
    `/tiles/${'a/'.repeat(7000)}${SMALL_TS}.pmtiles`,
  ].map((t) => ({ target: t, method: 'GET', withCredentials: true }));

  await checkProperty(
    'request targets',
    900,
    caseArb,
    async ({ target: t, method, withCredentials }) => {
      const bytes = buildRequest(method, t, withCredentials ? credentials : []);
      api().resetSpies();
      const res = checkOutcome(
        api(),
        bytes,
        await rawExchange(api().port, bytes, { method, timeoutMs: 5000 }),
        { method },
      )!;
      checkRouteOutcome(res, bytes, t, withCredentials);
      if (!withCredentials && (api().storeCalls.length > 0 || api().limiterCalls.length > 0)) {
        throw new InvariantViolation(
          `a request without credentials reached the store or the limiter: ${t}`,
        );
      }
    },
    named,
  );
});
