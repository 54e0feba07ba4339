/**
 * Every command-line entry point writes all of its output before it exits, whatever the reader:
 * into a pipe whose reader starts late (`keys usage --json | (sleep 1; wc -c)`), the bytes are
 * the ones a file gets (a pipe holds 64 KiB; an exit at once lost the rest and still said 0).
 * A reader that goes away makes the command exit non-zero instead of claiming success.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { hourLabel, HOUR_MS } from '../../src/domain/usage';
import { OUTPUT_FAILED_EXIT_CODE } from '../../src/shared/flushed-exit';

const DIST = path.resolve(__dirname, '../../dist/bin');
const KEYS = 1500;
let dir: string;
let file: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cli-output-'));
  file = path.join(dir, 'keys.json');
  const ids = Array.from({ length: KEYS }, (_, i) => `billing-key-${i}`);
  const sha = (id: string) => createHash('sha256').update(id).digest('hex');
  await fs.writeFile(
    file,
    JSON.stringify({
      apps: [{ id: 'web' }],
      keys: ids.map((id) => ({ id, sha256: sha(id), apps: ['web'] })),
    }),
  );
  const hour = hourLabel(Math.floor(Date.now() / HOUR_MS));
  const counts = Object.fromEntries(ids.map((id) => [id, { requests: 7, bytes: 7000 }]));
  await fs.writeFile(
    path.join(dir, 'usage.json'),
    JSON.stringify({ version: 1, applied: {}, hours: { [hour]: counts } }),
  );
});

afterAll(() => fs.rm(dir, { recursive: true, force: true }));

/** Quotes `word` for bash. */
const quoted = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * `node args | reader` in bash, as an operator would pipe it; the reader's output and the
 * command's own exit status (not the reader's).
 */
function piped(args: string[], reader: string): { out: string; code: string } {
  const command = [process.execPath, ...args].map(quoted).join(' ');
  const result = spawnSync(
    'bash',
    ['-c', `${command} | ${reader}; echo "exit \${PIPESTATUS[0]}"`],
    { encoding: 'utf8' },
  );
  const lines = result.stdout.trim().split('\n');
  return { out: lines.slice(0, -1).join('\n'), code: lines.at(-1)!.replace('exit ', '') };
}

it.each([
  ['keys usage --json', ['usage', '--json']],
  ['keys usage', ['usage']],
  ['keys list', ['list']],
])('%s into a late reader writes what a file gets, and exits 0', async (_name, command) => {
  const args = [path.join(DIST, 'keys.js'), ...command, '--file', file];
  const whole = spawnSync(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
  expect(whole.status).toBe(0);
  expect(whole.stdout.length).toBeGreaterThan(64 * 1024);
  expect(piped(args, '(sleep 1; wc -c)')).toEqual({
    out: String(whole.stdout.length),
    code: '0',
  });
});

it('a reader that goes away makes the command exit non-zero', () => {
  const args = [path.join(DIST, 'keys.js'), 'usage', '--json', '--file', file];
  expect(piped(args, 'head -c 10 >/dev/null').code).toBe(String(OUTPUT_FAILED_EXIT_CODE));
});
