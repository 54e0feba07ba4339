/**
 * The full 401 vs 403 matrix on a real replica (`startApiServer`, embedded backends): every
 * key state (missing, malformed in several ways, unknown, disabled, bound, bound elsewhere) ×
 * every app state (missing, malformed, unknown, disabled, bound, known but unbound) × both
 * endpoints (status, a published archive, an unpublished one, an invalid timestamp) × GET and
 * HEAD. test/api/auth.test.ts checks single cases; this checks every combination against
 * the contract model (test/harness/fuzz/auth-model.ts) and, through spies on the replica's
 * ports, that authentication comes before any other work: a refused request never reaches
 * the rate limiter or the archive store, and never costs a rate-limit point.
 */
import { APPS, KEYS } from '../harness/embedded-api';
import { expectedAuth } from '../harness/fuzz/auth-model';
import {
  errorRecordText,
  SMALL_TS,
  startHostileApi,
  type HostileApi,
} from '../harness/fuzz/hostile-api';
import { buildRequest, rawExchange, type RawHttpResponse } from '../harness/raw-socket';

jest.setTimeout(60_000);

let api: HostileApi;
beforeAll(async () => {
  api = await startHostileApi({ rateLimit: 1_000_000 });
});
afterAll(() => api?.stop());

const KEY_STATES: ReadonlyArray<readonly [string, string | undefined]> = [
  ['missing', undefined],
  ['without Bearer', KEYS.good],
  ['Bearer only', 'Bearer'],
  ['empty token', 'Bearer '],
  ['other scheme', `Basic ${KEYS.good}`],
  ['two tokens', `Bearer ${KEYS.good} ${KEYS.good}`],
  ['tab separator', `Bearer\t${KEYS.good}`],
  ['bad character', `Bearer ${KEYS.good}!`],
  ['unknown', 'Bearer rk_unknown-0123456789'],
  ['near miss', `Bearer ${KEYS.good.slice(0, -1)}8`],
  ['disabled', `Bearer ${KEYS.disabled}`],
  ['bound to web', `Bearer ${KEYS.good}`],
  ['bound to mobile only', `Bearer ${KEYS.unbound}`],
];
const APP_STATES: ReadonlyArray<readonly [string, string | undefined]> = [
  ['missing', undefined],
  ['without Bearer', APPS.web],
  ['empty token', 'Bearer '],
  ['malformed', `Bearer ${APPS.web} x`],
  ['unknown', 'Bearer nobody'],
  ['disabled', `Bearer ${APPS.off}`],
  ['web', `Bearer ${APPS.web}`],
  ['mobile', `Bearer ${APPS.mobile}`],
  ['known, bound to no key', `Bearer ${APPS.other}`],
];
const ENDPOINTS = [
  '/status.json',
  `/tiles/${SMALL_TS}.pmtiles`,
  '/tiles/202001010000.pmtiles',
  '/tiles/202613011200.pmtiles',
];

async function send(
  method: string,
  path: string,
  key: string | undefined,
  app: string | undefined,
): Promise<RawHttpResponse> {
  const headers: Array<[string, string]> = [];
  if (key !== undefined) headers.push(['Authorization', key]);
  if (app !== undefined) headers.push(['X-App', app]);
  const outcome = await rawExchange(api.port, buildRequest(method, path, headers), { method });
  if (outcome.kind !== 'response') throw new Error(`${method} ${path}: ${outcome.kind}`);
  return outcome.response;
}

it('every key state × app state × endpoint × GET/HEAD gets the contract decision, refusals doing no work', async () => {
  const mismatches: string[] = [];
  let cells = 0;
  for (const [keyName, key] of KEY_STATES) {
    for (const [appName, app] of APP_STATES) {
      const expected = expectedAuth(key, app);
      for (const path of ENDPOINTS) {
        for (const method of ['GET', 'HEAD']) {
          cells++;
          api.resetSpies();
          const res = await send(method, path, key, app);
          const cell = `${method} ${path} key=${keyName} app=${appName}`;
          const got = res.status === 401 || res.status === 403 ? res.status : 'allowed';
          if (got !== expected) mismatches.push(`${cell}: expected ${expected}, got ${res.status}`);
          if (got === 'allowed') {
            if (api.limiterCalls.length !== 1)
              mismatches.push(
                `${cell}: ${api.limiterCalls.length} rate-limit points for one request`,
              );
            continue;
          }
          if (method === 'GET' && res.body.toString() !== errorRecordText(res.status))
            mismatches.push(`${cell}: body ${res.body.toString()}`);
          if (res.header('content-type') !== 'application/json')
            mismatches.push(`${cell}: content-type ${res.header('content-type')}`);
          if (res.status === 401 && res.header('www-authenticate') !== 'Bearer')
            mismatches.push(`${cell}: 401 without WWW-Authenticate: Bearer`);
          if (res.headerLines.some(([n]) => n.startsWith('x-ratelimit-') || n === 'retry-after'))
            mismatches.push(`${cell}: rate-limit headers on ${res.status}`);
          if (api.storeCalls.length > 0) mismatches.push(`${cell}: archive store read before auth`);
          if (api.limiterCalls.length > 0)
            mismatches.push(`${cell}: rate-limit point charged before auth`);
        }
      }
    }
  }
  expect(cells).toBe(KEY_STATES.length * APP_STATES.length * ENDPOINTS.length * 2);
  expect(mismatches).toEqual([]);
});

it('refused requests cost no rate-limit point: 50 refusals with a 3-per-window key leave all 3 requests', async () => {
  const limitedApi = await startHostileApi({ rateLimit: 1_000_000 });
  try {
    const send3 = (key: string | undefined, app: string | undefined) =>
      rawExchange(
        limitedApi.port,
        buildRequest('GET', '/status.json', [
          ...(key === undefined ? [] : [['Authorization', key] as [string, string]]),
          ...(app === undefined ? [] : [['X-App', app] as [string, string]]),
        ]),
      );
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) {
      for (const app of [`Bearer ${APPS.mobile}`, `Bearer ${APPS.off}`]) {
        const outcome = await send3(`Bearer ${KEYS.limited}`, app); // known key, app not bound / disabled: 403
        statuses.push(outcome.kind === 'response' ? outcome.response.status : 0);
      }
    }
    expect(new Set(statuses)).toEqual(new Set([403]));
    expect(limitedApi.limiterCalls).toEqual([]);
    const allowed: number[] = [];
    for (let i = 0; i < 4; i++) {
      const outcome = await send3(`Bearer ${KEYS.limited}`, `Bearer ${APPS.web}`);
      allowed.push(outcome.kind === 'response' ? outcome.response.status : 0);
    }
    expect(allowed).toEqual([200, 200, 200, 429]);
  } finally {
    await limitedApi.stop();
  }
});

it('an unauthenticated request for a published archive never opens it, whatever it asks for', async () => {
  for (const headers of [
    [['Range', 'bytes=0-16383']],
    [
      ['Range', 'bytes=0-16383'],
      ['Authorization', 'Bearer rk_unknown-0123456789'],
      ['X-App', `Bearer ${APPS.web}`],
    ],
    [
      ['If-None-Match', '*'],
      ['Authorization', `Bearer ${KEYS.disabled}`],
      ['X-App', `Bearer ${APPS.web}`],
    ],
  ] as Array<Array<[string, string]>>) {
    api.resetSpies();
    const outcome = await rawExchange(
      api.port,
      buildRequest('GET', `/tiles/${SMALL_TS}.pmtiles`, headers),
    );
    expect(outcome.kind === 'response' && [401, 403].includes(outcome.response.status)).toBe(true);
    expect(api.storeCalls).toEqual([]);
    expect(api.limiterCalls).toEqual([]);
  }
});

it('two different Authorization lines are refused (401), whichever comes first', async () => {
  // Node keeps only the first Authorization line; a proxy or logger may use the last. Two
  // conflicting credentials must not authenticate as either of them.
  for (const [first, second] of [
    [KEYS.good, 'rk_unknown-0123456789'],
    [KEYS.good, KEYS.disabled],
    ['rk_unknown-0123456789', KEYS.good],
  ]) {
    const request = buildRequest('GET', '/status.json', [
      ['Authorization', `Bearer ${first}`],
      ['Authorization', `Bearer ${second}`],
      ['X-App', `Bearer ${APPS.web}`],
    ]);
    api.resetSpies();
    const outcome = await rawExchange(api.port, request);
    expect(outcome.kind === 'response' ? outcome.response.status : outcome.kind).toBe(401);
    expect(api.limiterCalls).toEqual([]);
  }
});
