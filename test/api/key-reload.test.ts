/** Key file changes take effect within 2 s; a broken file keeps the last good keys. */
import fs from 'node:fs/promises';
import { writeKeyFile } from '../../src/adapters/fs/key-file';
import {
  auth,
  KEYS,
  registryData,
  startEmbeddedApi,
  type EmbeddedApi,
} from '../harness/embedded-api';

let api: EmbeddedApi;
beforeAll(async () => {
  api = await startEmbeddedApi();
});
afterAll(() => api.stop());

async function statusWithin(expected: number, timeoutMs = 2000): Promise<void> {
  const started = Date.now();
  for (;;) {
    const res = await api.inject('/status.json', { headers: auth(KEYS.good) });
    // 503 (nothing published) proves authentication passed.
    const status = res.status === 503 ? 200 : res.status;
    if (status === expected) return;
    if (Date.now() - started > timeoutMs)
      throw new Error(`still ${res.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('revokes a key within 2 s, survives a broken file, and re-enables it', async () => {
  await statusWithin(200);
  const data = registryData();
  await writeKeyFile(api.keysFile, {
    ...data,
    keys: data.keys.map((k) => (k.id === 'good' ? { ...k, disabled: true } : k)),
  });
  await statusWithin(403);

  await fs.writeFile(api.keysFile, '{ not json');
  await new Promise((r) => setTimeout(r, 500));
  await statusWithin(403, 0);

  await writeKeyFile(api.keysFile, data);
  await statusWithin(200);
});
