/** `client.status()` against the running service, and the status record validation. */
import { createRadarClient } from '../../../src/client/radar-client';
import { RadarApiError, RadarResponseError } from '../../../src/client/errors';
import { parseRadarStatus, timestampToDate } from '../../../src/client/status';
import { buildArchive } from '../../fixtures/archives';
import { APPS, KEYS, startEmbeddedApi, type EmbeddedApi } from '../../harness/embedded-api';

const OLDER = '202611221358';
const NEWER = '202611221400';
let api: EmbeddedApi;

const client = (apiKey: string = KEYS.good, appId: string = APPS.web) =>
  createRadarClient({ baseUrl: api.baseUrl, credentials: { apiKey, appId } });

beforeAll(async () => {
  api = await startEmbeddedApi();
});
afterAll(() => api.stop());

describe('against the service', () => {
  it('503 before anything is published is a RadarApiError with the service message', async () => {
    const error = await client()
      .status()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RadarApiError);
    expect(error).toMatchObject({
      status: 503,
      serviceMessage: 'Service Unavailable',
      path: '/status.json',
    });
  });

  it('returns the validated status, newest first', async () => {
    await api.publish(OLDER, buildArchive(OLDER, 1));
    await api.publish(NEWER, buildArchive(NEWER, 1));
    await api.waitForListed(OLDER);
    await api.waitForListed(NEWER);
    const status = await client().status();
    expect(status).toEqual({
      healthy: expect.any(Boolean),
      latest: NEWER,
      timestamps: [NEWER, OLDER],
      forecasts: [],
    });
  });

  it('a trailing slash on the base URL is ignored', async () => {
    const status = await createRadarClient({
      baseUrl: `${api.baseUrl}/`,
      credentials: { apiKey: KEYS.good, appId: APPS.web },
    }).status();
    expect(status.latest).toBe(NEWER);
  });

  it.each([
    ['an unknown key', 'rk_nobody-0123456789', APPS.web, 401, 'Unauthorized'],
    ['an unknown app', KEYS.good, 'nobody-app', 401, 'Unauthorized'],
    ['a key not bound to the app', KEYS.unbound, APPS.web, 403, 'Forbidden'],
    ['a disabled key', KEYS.disabled, APPS.web, 403, 'Forbidden'],
  ])('%s is a RadarApiError %i', async (_name, key, app, status, message) => {
    const error = await client(key, app)
      .status()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RadarApiError);
    expect(error).toMatchObject({ status, serviceMessage: message });
  });
});

describe('parseRadarStatus', () => {
  it('sorts newest first and drops duplicates (whatever order a server lists)', () => {
    expect(
      parseRadarStatus({ healthy: true, latest: NEWER, timestamps: [OLDER, NEWER, OLDER] }),
    ).toEqual({ healthy: true, latest: NEWER, timestamps: [NEWER, OLDER], forecasts: [] });
  });

  it.each([
    ['not an object', 'hello'],
    ['null', null],
    ['healthy not boolean', { healthy: 'yes', latest: NEWER, timestamps: [NEWER] }],
    ['latest malformed', { healthy: true, latest: '2026112214', timestamps: [NEWER] }],
    ['timestamps not an array', { healthy: true, latest: NEWER, timestamps: NEWER }],
    ['a timestamp malformed', { healthy: true, latest: NEWER, timestamps: [NEWER, 202611221358] }],
  ])('rejects %s', (_name, body) => {
    expect(() => parseRadarStatus(body)).toThrow(RadarResponseError);
  });

  it('timestampToDate reads the digits as UTC', () => {
    expect(timestampToDate(NEWER)?.toISOString()).toBe('2026-11-22T14:00:00.000Z');
    expect(timestampToDate('202602301200')).toBeUndefined();
  });
});
