/** `npm run keys` end to end: a created key works against the running service at once. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const KEYS_ENTRY = path.resolve(__dirname, '../../dist/bin/keys.js');

function keys(file: string, ...args: string[]): string {
  return execFileSync(process.execPath, [KEYS_ENTRY, ...args, '--file', file], {
    encoding: 'utf8',
    stdio: 'pipe',
  });
}

it('creates, lists, disables and removes apps and keys, printing the key once', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'keys-cli-'));
  const file = path.join(dir, 'keys.json');
  try {
    keys(file, 'create-app', 'acme-web');
    const created = keys(file, 'create-key', 'acme', '--app', 'acme-web', '--limit', '50');
    const apiKey = created.trim().split('\n').pop()!;
    expect(apiKey).toMatch(/^rk_[A-Za-z0-9_-]{43}$/);
    const stored = await fs.readFile(file, 'utf8');
    expect(stored).not.toContain(apiKey);
    expect(JSON.parse(stored).keys[0]).toMatchObject({
      id: 'acme',
      apps: ['acme-web'],
      limit: 50,
      disabled: false,
    });
    expect(keys(file, 'list')).toMatch(/acme\s+sha256:[0-9a-f]{12}…\s+apps: acme-web\s+limit 50/);
    keys(file, 'disable-key', 'acme');
    expect(JSON.parse(await fs.readFile(file, 'utf8')).keys[0].disabled).toBe(true);
    keys(file, 'remove-key', 'acme');
    expect(JSON.parse(await fs.readFile(file, 'utf8')).keys).toEqual([]);
    expect(() => keys(file, 'remove-key', 'acme')).toThrow(/no key with id acme/);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

it('list on a key file that does not exist is an error, not an empty list', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'keys-cli-'));
  const file = path.join(dir, 'no-such-keys.json');
  try {
    let failure: { status: number | null; stderr: string } | undefined;
    try {
      keys(file, 'list');
    } catch (err) {
      failure = err as { status: number | null; stderr: string };
    }
    expect(failure?.status).toBe(1);
    expect(String(failure?.stderr)).toContain(`key file ${file} does not exist`);
    await expect(fs.stat(file)).rejects.toThrow(); // and nothing was created
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

it('sets allowed origins and requireOrigin, refusing malformed origins', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'keys-cli-'));
  const file = path.join(dir, 'keys.json');
  try {
    keys(file, 'create-app', 'acme-web');
    keys(file, 'create-key', 'acme', '--app', 'acme-web', '--origin', 'https://maps.acme.org');
    const stored = () => JSON.parse(readFileSync(file, 'utf8')).keys[0];
    expect(stored().origins).toEqual(['https://maps.acme.org']);
    keys(
      file,
      'set-origins',
      'acme',
      '--origin',
      'https://*.acme.org',
      '--origin',
      'http://localhost:5173',
    );
    keys(file, 'require-origin', 'acme');
    expect(stored()).toMatchObject({
      origins: ['https://*.acme.org', 'http://localhost:5173'],
      requireOrigin: true,
    });
    expect(keys(file, 'list')).toMatch(
      /origins: https:\/\/\*\.acme\.org, http:\/\/localhost:5173\s+\(origin required\)/,
    );
    expect(() => keys(file, 'set-origins', 'acme', '--origin', 'https://acme.org/app')).toThrow(
      /is not an origin/,
    );
    keys(file, 'allow-no-origin', 'acme');
    keys(file, 'set-origins', 'acme');
    expect(stored().origins).toBeUndefined();
    expect(stored().requireOrigin).toBeUndefined();
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
