/**
 * Hostile methods and headers against a real replica over a raw socket:
 * - every method in Node's table (TRACE, PROPFIND, M-SEARCH, ...) on every kind of path, with
 *   and without credentials and bodies: 405 + Allow on the API routes before any auth, 204 for
 *   a plain OPTIONS, 404 elsewhere; CONNECT is 405 everywhere (no tunnels);
 * - many and large headers (up to just under Node's 16 KiB head limit), semantic headers with
 *   random values: invariants hold and the answer follows the credentials;
 * - duplicate Authorization / X-App / Range / Host lines: conflicting credentials never
 *   authenticate, duplicates of one credential never widen access, two Host lines are a 400
 *   before anything else (RFC 9112 §3.2);
 * - Bearer values with odd spacing, case, tabs, NBSP and Unicode: the answer is exactly the
 *   one the RFC 6750 model (test/harness/fuzz/auth-model.ts) gives.
 * Requests Node answers itself (over-long heads, bad bytes) are in parser.test.ts.
 */
import http from 'node:http';
import fc from 'fast-check';
import { APPS, auth, KEYS } from '../harness/embedded-api';
import { bearerToken, expectedAuth } from '../harness/fuzz/auth-model';
import { useHostileApi } from '../harness/fuzz/hostile-api-fixture';
import { checkProperty } from '../harness/fuzz/fuzz-run';
import { SMALL_TS } from '../harness/fuzz/hostile-api';
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

const api = useHostileApi('headers.test.ts');

const credentials = Object.entries(auth()) as Array<[string, string]>;
const tile = `/tiles/${SMALL_TS}.pmtiles`;

function violation(what: string, res: RawHttpResponse | undefined, request: Buffer): never {
  throw new InvariantViolation(
    `${what}; got ${res ? `${res.status} ${res.reason}` : 'no response'}\n  request: ${JSON.stringify(request.toString('latin1').slice(0, 400))}`,
  );
}

/** Whether the response carries any rate-limit header (it must not on 401/403). */
const hasRateHeaders = (res: RawHttpResponse) =>
  res.headerLines.some(([n]) => n.startsWith('x-ratelimit-'));

it('every method on every kind of path: 405 before auth on a route, 204 for OPTIONS, 404 elsewhere', async () => {
  const paths = [
    '/status.json',
    tile,
    '/tiles/2026.pmtiles',
    '/tiles/209901010000.pmtiles',
    '/nope',
    '/',
    '/status.json/',
    '/tiles/',
  ];
  const apiRoute = (p: string) => p === '/status.json' || /^\/tiles\/[^/]+\.pmtiles$/.test(p);
  // `/` is a page route (it leads a browser to the viewer): methods are decided as on any
  // route, and a GET that does not ask for HTML is the 404 record.
  const pageRoute = (p: string) => p === '/';
  const caseArb = fc.record({
    method: fc.constantFrom(...http.METHODS),
    path: fc.constantFrom(...paths),
    creds: fc.constantFrom('good', 'none', 'bad'),
    body: fc.option(fc.string({ unit: 'binary-ascii', maxLength: 300 }), { nil: undefined }),
  });
  await checkProperty('methods', 500, caseArb, async ({ method, path, creds, body }) => {
    const headers: Array<[string, string]> =
      creds === 'good'
        ? [...credentials]
        : creds === 'bad'
          ? Object.entries(auth('rk_nope', APPS.web))
          : [];
    let bytes = buildRequest(
      method,
      path,
      body === undefined
        ? headers
        : [...headers, ['Content-Length', String(Buffer.byteLength(body, 'latin1'))]],
    );
    if (body !== undefined) bytes = Buffer.concat([bytes, Buffer.from(body, 'latin1')]);
    api().resetSpies();
    const outcome = await rawExchange(api().port, bytes, { method, timeoutMs: 5000 });
    const res = checkOutcome(api(), bytes, outcome, { method });
    if (!res) return;
    if (method === 'CONNECT') {
      // No tunnels on any target: 405 with Allow (or 400 when the parser refuses the target).
      if (res.status === 400) return;
      if (res.status !== 405 || res.header('allow') !== 'GET, HEAD, OPTIONS')
        violation('CONNECT is 405 with Allow', res, bytes);
      return;
    }
    if (pageRoute(path)) {
      const expected =
        method === 'GET' || method === 'HEAD' ? 404 : method === 'OPTIONS' ? 204 : 405;
      if (res.status !== expected)
        violation(`${method} on the page route / is ${expected}`, res, bytes);
      if (expected !== 404 && res.header('allow') !== 'GET, HEAD, OPTIONS')
        violation(`${method} on the page route / carries Allow`, res, bytes);
    } else if (!apiRoute(path)) {
      if (res.status !== 404) violation('an unknown path is 404 for every method', res, bytes);
    } else if (method === 'OPTIONS') {
      if (res.status !== 204 || res.header('allow') !== 'GET, HEAD, OPTIONS')
        violation('plain OPTIONS is 204 with Allow', res, bytes);
    } else if (method === 'GET' || method === 'HEAD') {
      const allowed = creds === 'good' ? [200, 400, 404] : [401];
      if (!allowed.includes(res.status))
        violation(`${method} with ${creds} credentials answers ${allowed.join('/')}`, res, bytes);
    } else if (res.status !== 405 || res.header('allow') !== 'GET, HEAD, OPTIONS') {
      violation(`${method} on an API route is 405 with Allow, before auth`, res, bytes);
    }
    if (
      !['GET', 'HEAD'].includes(method) &&
      (api().limiterCalls.length > 0 || api().authCalls > 0)
    ) {
      violation(`${method} reached authentication or the rate limiter`, res, bytes);
    }
  });
});

const SEMANTIC = [
  'Range',
  'If-Range',
  'If-None-Match',
  'If-Match',
  'If-Modified-Since',
  'If-Unmodified-Since',
  'Accept-Encoding',
  'Origin',
  'Access-Control-Request-Method',
  'Access-Control-Request-Headers',
  'X-Forwarded-For',
  'X-Forwarded-Proto',
  'X-Request-Id',
  'Upgrade',
  'Cookie',
  'Accept',
  'TE',
  'Max-Forwards',
  'Content-Type',
  'X-HTTP-Method-Override',
  'Forwarded',
  'Via',
  'Referer',
];

it('many, large and semantic headers: invariants hold and credentials decide', async () => {
  const name = fc.stringMatching(/^X-[A-Za-z0-9-]{1,30}$/);
  const value = fc
    .oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom('', ' ', '*', 'bytes=0-1', '"x"', 'gzip', 'null'),
    )
    .map(headerSafe);
  const extra = fc.oneof(
    { weight: 3, arbitrary: fc.tuple(name, value) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...SEMANTIC), value) },
  );
  const caseArb = fc.record({
    path: fc.constantFrom('/status.json', tile),
    method: fc.constantFrom('GET', 'HEAD'),
    extras: fc.array(extra, { maxLength: 60 }),
    pad: fc.option(fc.integer({ min: 100, max: 12_000 }), { nil: undefined }),
    creds: fc.constantFrom('good', 'good', 'none'),
  });
  await checkProperty(
    'many and large headers',
    500,
    caseArb,
    async ({ path, method, extras, pad, creds }) => {
      const headers: Array<[string, string | Buffer]> = creds === 'good' ? [...credentials] : [];
      for (const [n, v] of extras) headers.push([n, toWire(v)]);
      if (pad !== undefined) headers.push(['X-Pad', 'p'.repeat(pad)]);
      const bytes = buildRequest(method, path, headers);
      if (bytes.length > 16 * 1024 - 64) return; // over the head limit: parser.test.ts
      api().resetSpies();
      const res = checkOutcome(
        api(),
        bytes,
        await rawExchange(api().port, bytes, { method, timeoutMs: 5000 }),
        { method },
      )!;
      if (creds === 'none') {
        if (res.status !== 401) violation('no credentials is 401', res, bytes);
        if (api().storeCalls.length + api().limiterCalls.length > 0)
          violation('an unauthenticated request did work', res, bytes);
        return;
      }
      // A random name may be a case variant of X-App: Node joins its lines to the credential's
      // with ", " (each value trimmed), and the model decides what that joined value gets.
      const appLines = [
        auth()['X-App'],
        ...extras
          .filter(([n]) => n.toLowerCase() === 'x-app')
          .map(([, v]) => serverView(toWire(v)).replace(/^[ \t]+|[ \t]+$/g, '')),
      ];
      const expected = expectedAuth(auth().Authorization, appLines.join(', '));
      if (expected !== 'allowed') {
        if (res.status !== expected)
          violation(`X-App lines ${JSON.stringify(appLines)} must give ${expected}`, res, bytes);
        return;
      }
      if (![200, 206, 304, 412, 416].includes(res.status))
        violation('valid credentials: 200/206/304/412/416 only', res, bytes);
    },
  );
});

type Line = readonly [string, string];

it('duplicate Authorization, X-App, Range and Host lines', async () => {
  const keyLine = fc.constantFrom(
    `Bearer ${KEYS.good}`,
    `Bearer ${KEYS.disabled}`,
    `Bearer ${KEYS.unbound}`,
    'Bearer rk_unknown',
    'Basic abc',
    `bearer ${KEYS.good}`,
    '',
  );
  const appLine = fc.constantFrom(
    `Bearer ${APPS.web}`,
    `Bearer ${APPS.mobile}`,
    `Bearer ${APPS.off}`,
    'Bearer nobody',
    'acme-web',
  );
  const rangeLine = fc.constantFrom(
    'bytes=0-1',
    'bytes=2-3',
    'bytes=-5',
    'bytes=0-',
    'items=0-1',
    'bytes=999999999-',
  );
  const lines = <T>(arb: fc.Arbitrary<T>) =>
    fc.oneof(
      { weight: 2, arbitrary: fc.array(arb, { minLength: 1, maxLength: 1 }) },
      { weight: 1, arbitrary: fc.array(arb, { minLength: 2, maxLength: 3 }) },
    );
  const caseArb = fc.record({
    keys: lines(keyLine),
    apps: lines(appLine),
    ranges: fc.array(rangeLine, { maxLength: 3 }),
    hosts: fc.array(fc.constantFrom('127.0.0.1', 'evil.example', 'localhost:1'), { maxLength: 2 }),
    path: fc.constantFrom('/status.json', tile),
    order: fc.nat(),
  });
  await checkProperty(
    'duplicate headers',
    400,
    caseArb,
    async ({ keys, apps, ranges, hosts, path, order }) => {
      const lines: Line[] = [
        ...keys.map((v): Line => ['Authorization', v]),
        ...apps.map((v): Line => ['X-App', v]),
        ...ranges.map((v): Line => ['Range', v]),
        ...hosts.map((v): Line => ['Host', v]),
      ];
      // Interleave deterministically from `order`, keeping each name's relative order.
      const shuffled = [...lines].sort(
        (a, b) => ((a[0].length * 31 + order) % 7) - ((b[0].length * 31 + order) % 7),
      );
      const head = [
        `GET ${path} HTTP/1.1`,
        ...(hosts.length === 0 ? ['Host: 127.0.0.1'] : []),
        ...shuffled.map(([n, v]) => `${n}: ${v}`),
        'Connection: close',
      ];
      const bytes = Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1');
      api().resetSpies();
      const res = checkOutcome(
        api(),
        bytes,
        await rawExchange(api().port, bytes, { timeoutMs: 5000 }),
        { method: 'GET' },
      )!;

      if (hosts.length > 1) {
        // The protocol step refuses it before credentials: no auth, no point, no store read.
        if (res.status !== 400) violation('two Host lines must give 400', res, bytes);
        if (hasRateHeaders(res) || api().storeCalls.length + api().limiterCalls.length > 0)
          violation('a 400 for two Host lines carried rate-limit headers or did work', res, bytes);
        return;
      }
      const distinctKeys = new Set(keys.map((k) => k.trim()));
      // Node keeps the first Authorization line and joins X-App lines with ", ".
      const expected = distinctKeys.size > 1 ? 401 : expectedAuth(keys[0], apps.join(', '));
      const got = res.status === 401 || res.status === 403 ? res.status : 'allowed';
      if (got !== expected) {
        violation(
          `credentials ${JSON.stringify({ keys, apps })} must give ${expected}`,
          res,
          bytes,
        );
      }
      if (
        got !== 'allowed' &&
        (hasRateHeaders(res) || api().storeCalls.length + api().limiterCalls.length > 0)
      ) {
        violation('a refused request carried rate-limit headers or did work', res, bytes);
      }
      if (got === 'allowed' && path === tile) {
        const verdict = rangeOracle(
          ranges.length === 0 ? undefined : ranges.join(', '),
          api().archives.get(SMALL_TS)!.length,
        );
        const ok =
          (res.status === 200 && verdict.whole) ||
          (res.status === 416 && verdict.unsatisfiable) ||
          (res.status === 206 &&
            verdict.windows.some(([a, b]) =>
              res.header('content-range')?.startsWith(`bytes ${a}-${b}/`),
            ));
        if (!ok)
          violation(
            `Range lines ${JSON.stringify(ranges)} answered outside the RFC model`,
            res,
            bytes,
          );
      }
    },
  );
});

it('Bearer values with odd spacing, case, tabs and Unicode: exactly the RFC 6750 decision', async () => {
  const scheme = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('Bearer', 'bearer', 'BEARER', 'BeArEr', 'bEARER') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'Bearer:',
        'Bear er',
        'Bearerr',
        'Basic',
        'Token',
        '',
        'Ｂearer',
        'Beare',
        'Bearer\u00a0',
        'ßearer',
        'Bearer,',
      ),
    },
  );
  const separator = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(' ', '  ', '   ') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '',
        '\t',
        ' \t',
        '\t ',
        '\u00a0',
        '\u3000',
        ',',
        '=',
        ' = ',
        '\u200b ',
      ),
    },
  );
  const token = (good: string) =>
    fc.oneof(
      { weight: 6, arbitrary: fc.constant(good) },
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          good.toUpperCase(),
          `${good} `,
          `${good}  `,
          `${good}\t`,
          `${good}=`,
          `${good}==`,
          `${good}=x`,
          `"${good}"`,
          good.slice(0, -1),
          `${good}0`,
          `${good} ${good}`,
          good.replace('-', ' -'),
          encodeURIComponent(good).replace('-', '%2D'),
          `${good}\u00a0`,
          good.replace('e', 'е' /* Cyrillic */),
          good.replace('o', 'ο' /* Greek */),
          `\u200b${good}`,
          `${good}\u200b`,
          '',
          '=',
          '==',
          `${good},`,
          `${good};`,
          `${good}/`,
          `+${good}`,
          good.normalize('NFKD'),
          `${good}\u0301`,
        ),
      },
      { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map(headerSafe) },
    );
  const outer = fc.constantFrom('', '', '', ' ', '\t', '  ', '\u00a0');
  const value = (good: string) =>
    fc.tuple(outer, scheme, separator, token(good), outer).map((parts) => parts.join(''));
  const caseArb = fc.record({
    key: fc.option(value(KEYS.good), { nil: undefined, freq: 12 }),
    app: fc.option(value(APPS.web), { nil: undefined, freq: 12 }),
    path: fc.constantFrom('/status.json', tile),
  });
  await checkProperty('Bearer values', 600, caseArb, async ({ key, app, path }) => {
    const headers: Array<[string, Buffer]> = [];
    if (key !== undefined) headers.push(['Authorization', toWire(key)]);
    if (app !== undefined) headers.push(['X-App', toWire(app)]);
    const bytes = buildRequest('GET', path, headers);
    api().resetSpies();
    const res = checkOutcome(
      api(),
      bytes,
      await rawExchange(api().port, bytes, { timeoutMs: 5000 }),
      {
        method: 'GET',
      },
    )!;
    const seenKey = key === undefined ? undefined : serverView(toWire(key));
    const seenApp = app === undefined ? undefined : serverView(toWire(app));
    const expected = expectedAuth(seenKey, seenApp);
    const got = res.status === 401 || res.status === 403 ? res.status : 'allowed';
    if (got !== expected) {
      violation(
        `key ${JSON.stringify(seenKey)} (token ${JSON.stringify(bearerToken(seenKey))}), app ${JSON.stringify(seenApp)} must give ${expected}`,
        res,
        bytes,
      );
    }
    if (got === 'allowed' && res.status !== 200)
      violation('allowed GET of a published resource is 200', res, bytes);
    if (got === 401 && res.header('www-authenticate') !== 'Bearer')
      violation('401 without WWW-Authenticate: Bearer', res, bytes);
    if (
      got !== 'allowed' &&
      (hasRateHeaders(res) || api().storeCalls.length + api().limiterCalls.length > 0)
    ) {
      violation('a refused request carried rate-limit headers or did work', res, bytes);
    }
  });
});
