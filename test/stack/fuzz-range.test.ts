/**
 * Hostile `Range` (and `If-Range`) headers against a real replica over a raw socket.
 * Every case must satisfy the response invariants (test/harness/fuzz/invariants.ts: no 5xx, no hang,
 * exact error records, byte-identical 206 slices, store reads only of published archives)
 * and land in the set of answers the independent RFC 9110 model (test/harness/fuzz/range-oracle.ts)
 * allows. Replay a failure with FUZZ_SEED / FUZZ_PATH from its message.
 */
import fc from 'fast-check';
import { auth } from '../harness/embedded-api';
import { useHostileApi } from '../harness/fuzz/hostile-api-fixture';
import { checkProperty } from '../harness/fuzz/fuzz-run';
import { LARGE_TS, SMALL_TS } from '../harness/fuzz/hostile-api';
import { checkOutcome, InvariantViolation } from '../harness/fuzz/invariants';
import { rangeOracle } from '../harness/fuzz/range-oracle';
import {
  buildRequest,
  headerSafe,
  rawExchange,
  serverView,
  toWire,
  type RawHttpResponse,
} from '../harness/raw-socket';

jest.setTimeout(120_000);

const api = useHostileApi('range.test.ts');
const validators = new Map<string, { etag: string; lastModified: string }>();

beforeAll(() => {
  for (const ts of [SMALL_TS, LARGE_TS]) {
    const meta = api().running.ports.catalog.current().get(ts)!;
    validators.set(ts, { etag: meta.etag, lastModified: meta.lastModified.toUTCString() });
  }
});

const credentials = Object.entries(auth()) as Array<[string, string]>;

/** Numbers as a client might write them: in and around the archive, past 2^53, odd spellings. */
function position(size: number): fc.Arbitrary<string> {
  const plain = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: size + 16 }).map(String) },
    {
      weight: 3,
      arbitrary: fc
        .constantFrom(
          0,
          1,
          size - 1,
          size,
          size + 1,
          16383,
          16384,
          65535,
          65536,
          262143,
          262144,
          2 ** 31,
          2 ** 32,
          2 ** 53 - 1,
          2 ** 53,
          2 ** 53 + 1,
        )
        .map(String),
    },
    { weight: 2, arbitrary: fc.bigInt({ min: 0n, max: 10n ** 60n }).map(String) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('9'.repeat(400), '18446744073709551616', '9007199254740993'),
    },
  );
  return fc.oneof(
    { weight: 24, arbitrary: plain },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 1, max: 30 }), plain)
        .map(([n, p]) => '0'.repeat(n) + p),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '٣',
        '０',
        '１２',
        '²',
        '0x10',
        '1e3',
        '+5',
        '−5',
        '-1',
        '1.5',
        'Infinity',
        'NaN',
        ' 5',
        '5 ',
        '\t7',
        '\u00a09',
        '\u00a0',
      ),
    },
  );
}

function rangeSpec(size: number): fc.Arbitrary<string> {
  const p = position(size);
  return fc.oneof(
    { weight: 8, arbitrary: fc.tuple(p, p).map(([a, b]) => `${a}-${b}`) },
    { weight: 3, arbitrary: p.map((a) => `${a}-`) },
    { weight: 3, arbitrary: p.map((n) => `-${n}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('-', '', '--', '0--1', '-0', '1-2-3', ' - ', '*', '0-0'),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(p, fc.constantFrom(' ', '\t', '\u00a0', '  '), p)
        .map(([a, s, b]) => `-${a}${s}${b}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(p, fc.constantFrom(' - ', '\t-', '- ', ' -'), p)
        .map(([a, s, b]) => `${a}${s}${b}`),
    },
  );
}

function rangeHeader(size: number): fc.Arbitrary<string> {
  const unit = fc.oneof(
    { weight: 12, arbitrary: fc.constant('bytes') },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'Bytes',
        'BYTES',
        'items',
        'bytes ',
        ' bytes',
        '',
        'none',
        'bytes\t',
        'byte',
        'bytes=bytes',
      ),
    },
  );
  const joiner = fc.constantFrom(',', ',', ', ', ' ,', ',\t', ',,', ' , ');
  const count = fc.oneof(
    { weight: 10, arbitrary: fc.constant(1) },
    { weight: 3, arbitrary: fc.integer({ min: 2, max: 4 }) },
    { weight: 1, arbitrary: fc.integer({ min: 5, max: 300 }) },
  );
  const structured = fc
    .tuple(
      unit,
      fc.constantFrom('=', '=', '=', '=', '=', '=', '=', ' =', '= ', '=='),
      count.chain((n) => fc.array(rangeSpec(size), { minLength: n, maxLength: n })),
      joiner,
    )
    .map(([u, eq, specs, j]) => `${u}${eq}${specs.join(j)}`);
  const garbage = fc.oneof(
    fc.string({ maxLength: 60 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({
      unit: fc.constantFrom('b', 'y', 't', 'e', 's', '=', '-', ',', '0', '1', '9', ' '),
      maxLength: 30,
    }),
  );
  return fc
    .oneof({ weight: 12, arbitrary: structured }, { weight: 2, arbitrary: garbage })
    .map(headerSafe);
}

type IfRange = 'none' | 'etag' | 'other-etag' | 'weak-etag' | 'date' | 'other-date' | 'garbage';

function ifRangeValue(kind: IfRange, ts: string): string | undefined {
  const v = validators.get(ts)!;
  switch (kind) {
    case 'none':
      return undefined;
    case 'etag':
      return v.etag;
    case 'other-etag':
      return '"0123456789abcdef0123456789abcdef"';
    case 'weak-etag':
      return `W/${v.etag}`;
    case 'date':
      return v.lastModified;
    case 'other-date':
      return new Date(Date.parse(v.lastModified) + 1000).toUTCString();
    case 'garbage':
      return 'yes please';
  }
}

/** Whether the answer is one the RFC model allows for this Range / If-Range. */
function checkAgainstOracle(
  res: RawHttpResponse,
  rangeSeen: string,
  size: number,
  ifRangeHonoured: boolean,
  shown: string,
): void {
  const verdict = ifRangeHonoured
    ? rangeOracle(rangeSeen, size)
    : { whole: true, unsatisfiable: false, windows: [] };
  const allowed: string[] = [];
  if (verdict.whole) allowed.push('200');
  if (verdict.unsatisfiable) allowed.push('416');
  for (const [a, b] of verdict.windows) allowed.push(`206 ${a}-${b}`);
  const got =
    res.status === 206
      ? `206 ${/^bytes (\d+-\d+)\//.exec(res.header('content-range') ?? '')?.[1]}`
      : String(res.status);
  if (!allowed.includes(got)) {
    throw new InvariantViolation(
      `Range ${JSON.stringify(rangeSeen)} (size ${size}) answered ${got}; allowed: ${allowed.join(' | ')}\n  request: ${shown}`,
    );
  }
}

it('every Range header: invariants hold and the answer is one RFC 9110 allows', async () => {
  const sizes = new Map([...api().archives].map(([ts, a]) => [ts, a.length]));
  const caseArb = fc.constantFrom(SMALL_TS, LARGE_TS).chain((ts) =>
    fc.record({
      ts: fc.constant(ts),
      range: rangeHeader(sizes.get(ts)!),
      method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD'),
      ifRange: fc.oneof(
        { weight: 12, arbitrary: fc.constant<IfRange>('none') },
        { weight: 2, arbitrary: fc.constantFrom<IfRange>('etag', 'date') },
        {
          weight: 3,
          arbitrary: fc.constantFrom<IfRange>('other-etag', 'weak-etag', 'other-date', 'garbage'),
        },
      ),
    }),
  );
  const small = api().archives.get(SMALL_TS)!.length;
  const named = [
    'bytes=0-9007199254740993',
    'bytes=9007199254740993-',
    'bytes=-9007199254740993',
    `bytes=${'9'.repeat(400)}-`,
    `bytes=0-${'9'.repeat(400)}`,
    `bytes=-${'9'.repeat(400)}`,
    'bytes=5-3',
    'bytes=',
    'bytes=-',
    'bytes=-0',
    '',
    ' ',
    'bytes=٣-٥',
    'bytes=０-１',
    'bytes = 0-5',
    'bytes=0-5,',
    `bytes=${Array.from({ length: 300 }, (_, i) => `${i}-${i}`).join(',')}`,
    `bytes=-${small + 100} 9`,
    `bytes=0-5, ${small + 10}-`,
    `items=${small + 10}-`,
    `bytes =${small + 10}-`,
    // Suffixes at the edges of the archive: all but one byte, all of it, one past, one byte.
    `bytes=-${small - 1}`,
    `bytes=-${small}`,
    `bytes=-${small + 1}`,
    'bytes=-1',
    `bytes=${small - 1}-`,
    `bytes=0-${small - 2}`,
  ].map((range) => ({ ts: SMALL_TS, range, method: 'GET', ifRange: 'none' as IfRange }));

  await checkProperty(
    'Range / If-Range',
    700,
    caseArb,
    async ({ ts, range, method, ifRange }) => {
      const wire = toWire(range);
      const ifRangeText = ifRangeValue(ifRange, ts);
      const headers: Array<[string, string | Buffer]> = [...credentials, ['Range', wire]];
      if (ifRangeText !== undefined) headers.push(['If-Range', ifRangeText]);
      const bytes = buildRequest(method, `/tiles/${ts}.pmtiles`, headers);
      api().resetSpies();
      const outcome = await rawExchange(api().port, bytes, { method, timeoutMs: 5000 });
      const res = checkOutcome(api(), bytes, outcome, { method })!;
      const honoured = ifRange === 'none' || ifRange === 'etag' || ifRange === 'date';
      checkAgainstOracle(
        res,
        serverView(wire),
        api().archives.get(ts)!.length,
        honoured,
        JSON.stringify(bytes.toString('latin1').slice(0, 300)),
      );
    },
    named,
  );
});

describe('regressions found by the property above', () => {
  const get = async (range: string) => {
    const bytes = buildRequest('GET', `/tiles/${SMALL_TS}.pmtiles`, [
      ...credentials,
      ['Range', range],
    ]);
    api().resetSpies();
    return checkOutcome(api(), bytes, await rawExchange(api().port, bytes), { method: 'GET' })!;
  };

  it('a malformed suffix "bytes=-N M" (N at least the size) is ignored, not read as bytes=0-M', async () => {
    const size = api().archives.get(SMALL_TS)!.length;
    const res = await get(`bytes=-${size + 100} 9`);
    expect([res.status, res.header('content-range')]).toEqual([200, undefined]);
  });

  it.each(['items', 'bytes ', 'Items'])(
    'a Range in the unit %j is ignored (200), even past the end (no 416)',
    async (unit) => {
      const size = api().archives.get(SMALL_TS)!.length;
      expect((await get(`${unit}=0-5`)).status).toBe(200);
      expect((await get(`${unit}=${size + 10}-`)).status).toBe(200);
    },
  );
});
