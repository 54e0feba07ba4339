/**
 * The key CLI never sends a control character it read to the terminal: an id with terminal
 * escapes in the key file is refused where it is loaded, and a key id that usage data names
 * (a key no longer registered, counted before) or an argument echoed back is printed with its
 * control characters escaped, so nothing clears the screen or forges a line.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { hourLabel, HOUR_MS } from '../../src/domain/usage';

const KEYS = path.resolve(__dirname, '../../dist/bin/keys.js');
const CLEAR = '\u001b[2J\u001b[H';
const EVIL = `gone${CLEAR}\nacme  1000000 requests  (forged)\u009b31m`;
/** Any C0 control but line feed, DEL or a C1 control. */
const RAW_CONTROL = {
  asymmetricMatch: (text: string) =>
    [...text].some((c) => c !== '\n' && (c < ' ' || (c >= '\u007f' && c <= '\u009f'))),
  toString: () => 'a raw control character',
};

let dir: string;
let file: string;
const keys = (...args: string[]) =>
  spawnSync(process.execPath, [KEYS, ...args, '--file', file], { encoding: 'utf8' });

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cli-control-'));
  file = path.join(dir, 'keys.json');
  const sha256 = createHash('sha256').update('k').digest('hex');
  await fs.writeFile(
    file,
    JSON.stringify({ apps: [{ id: 'web' }], keys: [{ id: 'acme', sha256, apps: ['web'] }] }),
  );
  const hour = hourLabel(Math.floor(Date.now() / HOUR_MS));
  await fs.writeFile(
    path.join(dir, 'usage.json'),
    JSON.stringify({
      version: 1,
      applied: {},
      hours: { [hour]: { acme: { requests: 1 }, [EVIL]: { requests: 2 } } },
    }),
  );
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

it('usage prints a key id from usage data with its control characters escaped', () => {
  const table = keys('usage');
  expect(table.status).toBe(0);
  expect(table.stdout).not.toEqual(RAW_CONTROL);
  expect(table.stdout).toContain('gone\\u001b[2J\\u001b[H\\u000aacme');
  expect(table.stdout.split('\n').some((line) => line.startsWith('acme  1000000'))).toBe(false);
  const json = keys('usage', '--json');
  expect(json.status).toBe(0);
  expect(json.stdout).not.toEqual(RAW_CONTROL);
  // Still JSON, naming the same id.
  const report = JSON.parse(json.stdout) as { keys: Array<{ key: string }> };
  expect(report.keys.map((k) => k.key)).toContain(EVIL);
});

it('an argument echoed back in an error is escaped', () => {
  const result = keys('disable-key', `x${CLEAR}`);
  expect(result.status).toBe(1);
  expect(result.stderr).toContain('no key with id x\\u001b[2J');
  expect(result.stderr).not.toEqual(RAW_CONTROL);
});

it('a key file whose id holds an escape is refused, naming the field, without the escape', async () => {
  const bad = path.join(dir, 'bad-keys.json');
  const sha256 = createHash('sha256').update('b').digest('hex');
  await fs.writeFile(bad, JSON.stringify({ apps: [], keys: [{ id: `a${CLEAR}`, sha256 }] }));
  const result = spawnSync(process.execPath, [KEYS, 'list', '--file', bad], { encoding: 'utf8' });
  expect(result.status).toBe(1);
  expect(result.stderr).toContain('keys[0].id: ids use letters, digits');
  expect(result.stderr).not.toEqual(RAW_CONTROL);
  expect(result.stdout).toBe('');
});
