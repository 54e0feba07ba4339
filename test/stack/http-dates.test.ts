/**
 * HTTP-date conditions over a real socket, against the built entry point running in a
 * non-UTC time zone (TZ=Asia/Kolkata, UTC+05:30): the three RFC 9110 forms are all GMT, and
 * anything else (a year, ISO-8601, a wrong zone name) is not a date, so its condition is
 * ignored instead of answering 304, 412 or honouring a range.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeKeyFile } from '../../src/adapters/fs/key-file';
import { buildArchive } from '../fixtures/archives';
import { auth, registryData } from '../harness/embedded-api';
import { request } from '../harness/http-client';
import type { SpawnedProcess } from '../harness/spawned-api';
import { spawnServedApi } from '../harness/served-api';

jest.setTimeout(60_000);

const ZONE = 'Asia/Kolkata';
const TS = '202611221400';
const archive = buildArchive(TS, 3);
// Last-Modified of the archive (its file mtime): a single-digit day for asctime's ` 5`.
const MODIFIED = new Date('2026-11-05T03:04:05Z');
const IMF = 'Thu, 05 Nov 2026 03:04:05 GMT';
const RFC850 = 'Thursday, 05-Nov-26 03:04:05 GMT';
const ASCTIME = 'Thu Nov  5 03:04:05 2026';
const ASCTIME_BEFORE = 'Thu Nov  5 03:04:04 2026';

let root: string;
let proc: SpawnedProcess;
let base: string;

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-dates-'));
  const dataDir = path.join(root, 'data');
  await fs.mkdir(dataDir);
  const file = path.join(dataDir, `${TS}.pmtiles`);
  await fs.writeFile(file, archive);
  await fs.utimes(file, MODIFIED, MODIFIED);
  await writeKeyFile(path.join(root, 'keys.json'), registryData());
  ({ proc, base } = await spawnServedApi(root, TS, { TZ: ZONE }));
});
afterAll(async () => {
  await proc?.stop();
  await fs.rm(root, { recursive: true, force: true });
});

const get = (headers: Record<string, string>) =>
  request(base, `/tiles/${TS}.pmtiles`, { headers: { ...auth(), ...headers } });

it('the zone is really non-UTC for a node process here, and Last-Modified is IMF-fixdate', async () => {
  // Without tzdata TZ would silently fall back to UTC and this test would prove nothing.
  const offset = execFileSync(process.execPath, ['-p', 'new Date(0).getTimezoneOffset()'], {
    env: { TZ: ZONE },
  });
  expect(offset.toString().trim()).toBe('-330');
  expect((await get({})).headers['last-modified']).toBe(IMF);
});

describe.each([
  ['IMF-fixdate', IMF],
  ['rfc850', RFC850],
  ['asctime', ASCTIME],
])('%s is read as GMT', (_form, date) => {
  it('If-Modified-Since equal to Last-Modified -> 304', async () => {
    expect((await get({ 'If-Modified-Since': date })).status).toBe(304);
  });
  it('If-Unmodified-Since equal to Last-Modified -> 200', async () => {
    expect((await get({ 'If-Unmodified-Since': date })).status).toBe(200);
  });
  it('If-Range equal to Last-Modified honours the range', async () => {
    const res = await get({ Range: 'bytes=0-9', 'If-Range': date });
    expect(res.status).toBe(206);
    expect(res.body.equals(archive.subarray(0, 10))).toBe(true);
  });
});

it('a date one second before Last-Modified: 200 for If-Modified-Since, 412 for If-Unmodified-Since', async () => {
  expect((await get({ 'If-Modified-Since': ASCTIME_BEFORE })).status).toBe(200);
  const res = await get({ 'If-Unmodified-Since': ASCTIME_BEFORE });
  expect(res.status).toBe(412);
  expect(res.json()).toEqual({ error: { code: 412, message: 'Precondition Failed' } });
});

describe.each(['2099', '2000', '2026-11-23T07:06:21Z', 'Tue, 01 Jan 2999 00:00:00 UTC', 'garbage'])(
  '%j is not a date',
  (junk) => {
    it('If-Modified-Since is ignored (200 with the body)', async () => {
      const res = await get({ 'If-Modified-Since': junk });
      expect(res.status).toBe(200);
      expect(res.body.equals(archive)).toBe(true);
    });
    it('If-Unmodified-Since is ignored (200, not 412)', async () => {
      expect((await get({ 'If-Unmodified-Since': junk })).status).toBe(200);
    });
    it('If-Range is false: the whole archive, not the range', async () => {
      const res = await get({ Range: 'bytes=0-9', 'If-Range': junk });
      expect(res.status).toBe(200);
      expect(res.body.length).toBe(archive.length);
    });
  },
);

it('an ISO-8601 If-Range equal to Last-Modified does not honour the range', async () => {
  const res = await get({ Range: 'bytes=0-9', 'If-Range': MODIFIED.toISOString() });
  expect(res.status).toBe(200);
});
