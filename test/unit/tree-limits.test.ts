/**
 * The limits of the tree: no module of src/ over 300 lines (small files with one job), and no two
 * test files share a name (a failing test's file name alone says which one it is, in jest's
 * summary, in CI logs and in a search).
 */
import fs from 'node:fs';
import path from 'node:path';
import { repoPath } from './deploy/deploy-files';

/** Every file under `dir` (repo-relative), recursively. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(repoPath(dir), { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(repoPath(f)).isFile());
}

it('no module of src/ is over 300 lines', () => {
  const long = filesUnder('src')
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ f, lines: fs.readFileSync(repoPath(f), 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > 300)
    .map(({ f, lines }) => `${f}: ${lines}`);
  expect(long).toEqual([]);
});

it('no two test files share a name', () => {
  const byName = new Map<string, string[]>();
  for (const f of filesUnder('test').filter((f) => f.endsWith('.test.ts')))
    byName.set(path.basename(f), [...(byName.get(path.basename(f)) ?? []), f]);
  expect([...byName.values()].filter((paths) => paths.length > 1)).toEqual([]);
});
