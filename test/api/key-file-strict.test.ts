/**
 * A key file edited into something the strict format refuses (a misspelt field, `{}`, a hash
 * of the wrong length, two keys of one hash, two apps of one id) never weakens what is in force: the reload fails with an error that
 * names the field, and the last good keys, origin restrictions included, stay in force. A key
 * file that is invalid at start stops the replica.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeKeyFile } from '../../src/adapters/fs/key-file';
import { createFileKeyStore } from '../../src/adapters/fs/key-store';
import { serializeKeyFile } from '../../src/keys/key-file-format';
import { createSilentLogger } from '../../src/logger';
import { auth, registryData, startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { loggedLines } from '../harness/log-lines';
import { waitFor } from '../harness/wait';

const ALLOWED = 'https://maps.acme.org';
const OTHER = 'https://evil.example';

/** registryData() with the `good` key restricted to one origin. */
function restricted() {
  const data = registryData();
  return {
    ...data,
    keys: data.keys.map((k) => (k.id === 'good' ? { ...k, origins: [ALLOWED] } : k)),
  };
}

const { lines, logger } = loggedLines();
let api: EmbeddedApi;

beforeAll(async () => {
  api = await startEmbeddedApi({
    logger,
    prepare: (root) => writeKeyFile(path.join(root, 'keys.json'), restricted()),
  });
});
afterAll(() => api.stop());

/** Status of `/status.json` for the good key from `origin` (503 before any publish: allowed). */
async function statusFrom(origin: string): Promise<number> {
  const res = await api.inject('/status.json', {
    headers: { ...auth(), Origin: origin },
  });
  return res.status === 503 ? 200 : res.status;
}

/**
 * Writes `text` as the key file and waits for the reload's failure naming `field`. A change
 * can be seen twice (the watcher's event and the stat poll), so the previous file's failure may
 * be logged once more after this write: the awaited line is the one that names `field`.
 */
async function writeInvalid(text: string, field: string): Promise<Record<string, unknown>> {
  const before = lines.length;
  await fs.writeFile(api.keysFile, text);
  let failure: Record<string, unknown> | undefined;
  await waitFor(
    () =>
      (failure = lines
        .slice(before)
        .find(
          (l) =>
            l['msg'] === 'key file reload failed; keeping the last good keys' &&
            String(l['err']).includes(field),
        )) !== undefined,
    5000,
    `reload failure naming ${field}`,
  );
  return failure!;
}

it('a misspelt, empty or wrong-hash key file keeps the last good keys and logs the field', async () => {
  expect(await statusFrom(ALLOWED)).toBe(200);
  expect(await statusFrom(OTHER)).toBe(403);

  // "origin" for "origins": would lift the restriction if it loaded.
  const typo = serializeKeyFile(restricted()).replace('"origins"', '"origin"');
  const typoFailure = await writeInvalid(typo, 'keys[0].origin');
  expect(typoFailure).toMatchObject({ level: 50 });
  expect(String(typoFailure['err'])).toContain('keys[0].origin: unknown field');
  expect(await statusFrom(OTHER)).toBe(403);
  expect(await statusFrom(ALLOWED)).toBe(200);

  // `{}`: would load as zero keys and lock everyone out.
  const empty = await writeInvalid('{}', 'apps');
  expect(String(empty['err'])).toContain('apps: missing (required)');
  expect(String(empty['err'])).toContain('keys: missing (required)');
  expect(await statusFrom(ALLOWED)).toBe(200);

  // A hash one digit short, one too long, not hex: would lock the key out without a word.
  const good = restricted();
  for (const sha256 of [
    good.keys[0]!.sha256.slice(0, 63),
    `${good.keys[0]!.sha256}a`,
    `${good.keys[0]!.sha256.slice(0, 63)}z`,
  ]) {
    const text = JSON.stringify({
      ...good,
      keys: good.keys.map((k, i) => (i === 0 ? { ...k, sha256 } : k)),
    });
    const failure = await writeInvalid(text, 'keys[0].sha256');
    expect(String(failure['err'])).toContain(
      'keys[0].sha256: sha256 must be exactly 64 hex digits',
    );
    expect(await statusFrom(ALLOWED)).toBe(200);
    expect(await statusFrom(OTHER)).toBe(403);
  }

  // The disabled key's hash again under another, enabled id: which record answered would
  // depend on order, and disabling one would leave the key working through the other.
  const twin = { ...good.keys[0]!, id: 'good-copy', origins: [OTHER] };
  const twinFailure = await writeInvalid(
    JSON.stringify({ ...good, keys: [...good.keys, twin] }),
    'keys[4].sha256',
  );
  expect(String(twinFailure['err'])).toContain('keys[4].sha256: duplicate key hash (as keys[0])');
  expect(await statusFrom(OTHER)).toBe(403);
  // Two apps of one id, the second disabled: refused the same way.
  const appFailure = await writeInvalid(
    JSON.stringify({ ...good, apps: [...good.apps, { id: good.apps[0]!.id, disabled: true }] }),
    'apps[4].id',
  );
  expect(String(appFailure['err'])).toContain('apps[4].id: duplicate app id');
  expect(await statusFrom(ALLOWED)).toBe(200);
  expect(await statusFrom(OTHER)).toBe(403);

  // A valid file still reloads: the restriction lifted on purpose takes effect.
  await writeKeyFile(api.keysFile, registryData());
  await waitFor(async () => (await statusFrom(OTHER)) === 200, 5000, 'valid file reloaded');
});

it.each([
  ['{}', 'apps: missing (required)'],
  ['{"apps": [], "keys": [], "key": []}', 'key: unknown field'],
])('a key file %s at start is refused, naming the field', async (text, named) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-keys-strict-'));
  try {
    const file = path.join(dir, 'keys.json');
    await fs.writeFile(file, text);
    await expect(
      createFileKeyStore({ file, defaultLimit: 10, logger: createSilentLogger() }),
    ).rejects.toThrow(named);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
