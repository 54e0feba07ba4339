/**
 * `npm run keys` (the built CLI) never writes a key file the service would refuse, and never
 * builds on one: given a file with a misspelt field, without both arrays, or with a hash of the
 * wrong length, every command exits 1 naming the field and leaves the file byte for byte as it
 * was (an edit through the CLI would otherwise "repair" the typo by dropping the field, lifting
 * the restriction for good).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const KEYS_ENTRY = path.resolve(__dirname, '../../dist/bin/keys.js');
const HASH = 'ab'.repeat(32);

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'keys-cli-strict-'));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

/** Runs the CLI; resolves with its exit status and stderr. */
function run(file: string, ...args: string[]): { status: number; stderr: string } {
  try {
    execFileSync(process.execPath, [KEYS_ENTRY, ...args, '--file', file], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
    return { status: 0, stderr: '' };
  } catch (err) {
    const failure = err as { status: number | null; stderr: string };
    return { status: failure.status ?? -1, stderr: String(failure.stderr) };
  }
}

const key = (extra: Record<string, unknown>) => ({
  id: 'acme',
  sha256: HASH,
  apps: ['acme-web'],
  disabled: false,
  ...extra,
});

it.each([
  [
    'a misspelt field',
    { apps: [{ id: 'acme-web', disabled: false }], keys: [key({ origin: ['https://a.org'] })] },
    'keys[0].origin: unknown field',
  ],
  ['no arrays', {}, 'apps: missing (required)'],
  ['no keys array', { apps: [] }, 'keys: missing (required)'],
  [
    'a 63-digit hash',
    { apps: [{ id: 'acme-web', disabled: false }], keys: [key({ sha256: HASH.slice(1) })] },
    'keys[0].sha256: sha256 must be exactly 64 hex digits',
  ],
])(
  'a key file with %s: every command exits 1 naming it, the file untouched',
  async (name, doc, named) => {
    const file = path.join(dir, `${name.replace(/\W+/g, '-')}.json`);
    const text = `${JSON.stringify(doc, null, 2)}\n`;
    await fs.writeFile(file, text);
    for (const args of [
      ['list'],
      ['create-app', 'other-web'],
      ['create-key', 'other', '--app', 'acme-web'],
      ['set-origins', 'acme'],
      ['disable-key', 'acme'],
    ]) {
      const result = run(file, ...args);
      expect(result).toMatchObject({ status: 1 });
      expect(result.stderr).toContain(named);
    }
    expect(await fs.readFile(file, 'utf8')).toBe(text);
  },
);

it('what the CLI writes is what the strict format reads', async () => {
  const file = path.join(dir, 'fresh.json');
  expect(run(file, 'create-app', 'acme-web').status).toBe(0);
  expect(
    run(file, 'create-key', 'acme', '--app', 'acme-web', '--origin', 'https://a.org').status,
  ).toBe(0);
  expect(run(file, 'require-origin', 'acme').status).toBe(0);
  expect(run(file, 'list').status).toBe(0);
  const stored = JSON.parse(await fs.readFile(file, 'utf8')) as {
    keys: Array<Record<string, unknown>>;
  };
  expect(Object.keys(stored).sort()).toEqual(['apps', 'keys']);
  expect(Object.keys(stored.keys[0]!).sort()).toEqual(
    ['apps', 'disabled', 'id', 'origins', 'requireOrigin', 'sha256'].sort(),
  );
  expect(stored.keys[0]!['sha256']).toMatch(/^[0-9a-f]{64}$/);
});
