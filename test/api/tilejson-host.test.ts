/**
 * The host TileJSON names in its `tiles` URL is canonical and openable: a bracketed literal
 * must be a real IPv6 address (`[::::]` and `[...]` are 400s on every route, as any malformed
 * `Host` is), and a port is named as a number (`08080` is `8080`; 0 and past 65535 are 400s).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { buildArchive } from '../fixtures/archives';
import { auth, type EmbeddedApi, startEmbeddedApi } from '../harness/embedded-api';
import { recentTimestamp } from '../harness/timestamps';

const TS = recentTimestamp(2);
let api: EmbeddedApi;

beforeAll(async () => {
  api = await startEmbeddedApi({
    prepare: (_root, dataDir) =>
      fs.writeFile(path.join(dataDir, `${TS}.pmtiles`), buildArchive(TS)),
  });
  await api.waitForListed(TS);
});
afterAll(() => api?.stop());

const tileJson = (host: string) =>
  api.inject(`/tiles/${TS}.json`, { headers: { ...auth(), Host: host } });

it.each([
  ['radar.example:08080', 'http://radar.example:8080'],
  ['Radar.Example:00443', 'http://radar.example:443'],
  ['[::1]:08080', 'http://[::1]:8080'],
  ['[2001:DB8::1]', 'http://[2001:db8::1]'],
  ['[::ffff:192.0.2.1]', 'http://[::ffff:192.0.2.1]'],
])('Host %s is named as %s', async (host, base) => {
  const res = await tileJson(host);
  expect(res.status).toBe(200);
  const doc = JSON.parse(res.body.toString()) as { tiles: string[] };
  expect(doc.tiles[0]!.startsWith(`${base}/tiles/${TS}/`)).toBe(true);
});

it('a port of 0 cannot be named: TileJSON is a 400', async () => {
  expect((await tileJson('[::1]:0')).status).toBe(400);
});

it.each([['[::::]'], ['[...]:1'], ['[1:2:3:4:5:6:7:8:9]'], ['radar.example:65536']])(
  'Host %s is a 400 with the error record, on TileJSON and elsewhere',
  async (host) => {
    for (const route of [`/tiles/${TS}.json`, '/status.json']) {
      const res = await api.inject(route, { headers: { ...auth(), Host: host } });
      expect({ route, status: res.status }).toEqual({ route, status: 400 });
      expect(JSON.parse(res.body.toString())).toMatchObject({ error: { code: 400 } });
    }
  },
);
