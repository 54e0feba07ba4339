/**
 * Keys at rest are SHA-256 hashes only (docs/security.md), in every file the service or its
 * tools write: the key file written by `npm run keys` (the built CLI, as operators run it) and
 * by `writeKeyFile`, and the embedded demo key file. The plain demo key is kept on purpose in
 * `demo-credentials.json` beside it (so `npm start` can print it again); that file must be
 * readable by its owner only. The Redis registry is checked in log-and-redis-hygiene.test.ts.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeKeyFile } from '../../src/adapters/fs/key-file';
import { hashApiKey } from '../../src/domain/key-registry';
import { demoCredentialsPath, ensureDemoCredentials } from '../../src/embedded/demo-credentials';
import { KEYS, registryData } from '../harness/embedded-api';

const KEYS_ENTRY = path.resolve(__dirname, '../../dist/bin/keys.js');

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'radar-keys-at-rest-'));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

/** Every file under `root`, as one string per file. */
async function allFiles(root: string): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  for (const entry of await fs.readdir(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(
      entry.parentPath ?? (entry as unknown as { path: string }).path,
      entry.name,
    );
    out.push([file, await fs.readFile(file, 'latin1')]);
  }
  return out;
}

it('npm run keys stores only hashes; the printed key is never in the file, its listing or any temp file', async () => {
  const folder = path.join(dir, 'cli');
  const file = path.join(folder, 'keys.json');
  const cli = (...args: string[]) =>
    execFileSync(process.execPath, [KEYS_ENTRY, ...args, '--file', file], { encoding: 'utf8' });
  cli('create-app', 'acme-web');
  cli('create-app', 'acme-mobile');
  const created: string[] = [];
  for (const [id, apps] of [
    ['acme', ['acme-web']],
    ['beta', ['acme-web', 'acme-mobile']],
    ['gamma', ['acme-mobile']],
  ] as const) {
    const out = cli('create-key', id, ...apps.flatMap((a) => ['--app', a]));
    created.push(out.trim().split('\n').pop()!);
  }
  cli('disable-key', 'beta');
  cli('remove-key', 'gamma');
  const listing = cli('list');

  const stored = JSON.parse(await fs.readFile(file, 'utf8')) as {
    keys: Array<{ id: string; sha256: string }>;
  };
  expect(stored.keys.map((k) => [k.id, k.sha256])).toEqual([
    ['acme', hashApiKey(created[0]!)],
    ['beta', hashApiKey(created[1]!)],
  ]);
  const files = await allFiles(folder);
  expect(files.map(([f]) => path.basename(f))).toEqual(['keys.json']); // no temp file left behind
  for (const key of created) {
    for (const [name, text] of [...files, ['list output', listing] as [string, string]]) {
      expect({ name, leaks: text.includes(key) || text.includes(key.slice(3)) }).toEqual({
        name,
        leaks: false,
      });
    }
  }
  expect((await fs.stat(file)).mode & 0o077).toBe(0); // not readable by group or others
});

it('writeKeyFile (the key file format every tool writes) holds hashes, never keys', async () => {
  const file = path.join(dir, 'written', 'keys.json');
  await writeKeyFile(file, registryData());
  const text = await fs.readFile(file, 'utf8');
  for (const key of Object.values(KEYS)) {
    expect(text).not.toContain(key);
    expect(text).toContain(hashApiKey(key));
  }
});

it('embedded demo credentials: the key file holds the hash; the plain key is only in the owner-only credentials file', async () => {
  const file = path.join(dir, 'demo', 'keys.json');
  await fs.mkdir(path.dirname(file));
  const demo = await ensureDemoCredentials(file);
  expect(demo).toBeDefined();
  const keyFile = await fs.readFile(file, 'utf8');
  expect(keyFile).not.toContain(demo!.apiKey);
  expect(keyFile).toContain(hashApiKey(demo!.apiKey));
  const credentials = demoCredentialsPath(file);
  expect((await fs.stat(credentials)).mode & 0o077).toBe(0);
  expect((await fs.stat(file)).mode & 0o077).toBe(0);
});
