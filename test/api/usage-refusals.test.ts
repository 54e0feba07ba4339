/**
 * Which answers name a key for usage, in-process through the core: an allowed request carries
 * its caller, a refusal of a known key (app unknown, disabled, not bound, origin refused)
 * carries that key as `refusedKey`, and requests without a known key carry none (they are not
 * per-key usage).
 */
import { writeKeyFile } from '../../src/adapters/fs/key-file';
import { buildArchive } from '../fixtures/archives';
import { APPS, auth, KEYS, startEmbeddedApiWith, type EmbeddedApi } from '../harness/embedded-api';
import { BROWSER_KEY, registryWithBrowserKey } from '../harness/browser-key-registry';
import { waitFor } from '../harness/wait';

const TS = '202611221400';
let api: EmbeddedApi;

beforeAll(async () => {
  api = await startEmbeddedApiWith(TS, buildArchive(TS, 2));
  await writeKeyFile(
    api.keysFile,
    registryWithBrowserKey({ origins: ['https://maps.example.com'] }),
  );
  await waitFor(
    async () => (await api.inject('/status.json', { headers: auth(BROWSER_KEY) })).status === 200,
    5000,
    'key file reloaded',
    25,
  );
});
afterAll(() => api.stop());

const answerOf = async (headers: Record<string, string>, path = '/status.json') =>
  (await api.inject(path, { headers })).answer;

it('a refusal of a known key names that key', async () => {
  const cases: Array<[Record<string, string>, number, string]> = [
    [auth(KEYS.good, 'no-such-app'), 401, 'good'],
    [auth(KEYS.good, APPS.off), 403, 'good'],
    [auth(KEYS.disabled), 403, 'disabled'],
    [auth(KEYS.unbound), 403, 'unbound'],
    [{ ...auth(BROWSER_KEY), Origin: 'https://evil.example' }, 403, 'browser'],
  ];
  for (const [headers, status, key] of cases) {
    const answer = await answerOf(headers, `/tiles/${TS}.pmtiles`);
    expect([answer.status, answer.refusedKey, answer.caller]).toEqual([status, key, undefined]);
  }
});

it('an allowed request names its caller; a request without a known key names none', async () => {
  const allowed = await answerOf(auth());
  expect([allowed.status, allowed.caller?.keyId, allowed.refusedKey]).toEqual([
    200,
    'good',
    undefined,
  ]);
  for (const headers of [
    auth('rk_unknown-key-0123456789'),
    { 'X-App': `Bearer ${APPS.web}` },
    { Authorization: `Bearer ${KEYS.good}` },
  ]) {
    const answer = await answerOf(headers);
    expect([answer.status, answer.caller, answer.refusedKey]).toEqual([401, undefined, undefined]);
  }
  const limited = await answerOf(auth(KEYS.limited));
  expect(limited.caller?.keyId).toBe('limited');
});

it('a limiter that fails unexpectedly answers 500 and still names the authenticated caller', async () => {
  const failing = await startEmbeddedApiWith(TS, buildArchive(TS, 2), {
    decoratePorts: (ports) => ({
      ...ports,
      limiter: { consume: () => Promise.reject(new Error('limiter store lost')) },
    }),
  });
  try {
    const answer = (await failing.inject('/status.json', { headers: auth() })).answer;
    expect([answer.status, answer.caller?.keyId, answer.rate, answer.refusedKey]).toEqual([
      500,
      'good',
      undefined,
      undefined,
    ]);
  } finally {
    await failing.stop();
  }
});
