/**
 * The data directory's error boundary on real files: errno codes never leave the adapter.
 * A missing file (ENOENT, ENOTDIR) is `ArchiveNotFoundError`; a refused one (EACCES, chmod 000)
 * `ArchiveReadError('access-denied')`; any other errno (EISDIR here) `io-error`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFsArchiveSource } from '../../../../src/adapters/fs/archive-store';
import { fsReadReason, translateFsError } from '../../../../src/adapters/fs/read-errors';
import { ArchiveNotFoundError, ArchiveReadError } from '../../../../src/domain/archive-errors';
import { classifyReadFailure } from '../../../../src/ingest/read-failure';

let dir: string;
const NAME = '202406011200.pmtiles';

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fs-read-errors-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const readError = (source: ReturnType<typeof createFsArchiveSource>, name: string) =>
  source.readHead(name, 16).then(
    () => undefined,
    (err: unknown) => err,
  );

it('a missing file (ENOENT) and a path through a file (ENOTDIR) are ArchiveNotFoundError', async () => {
  const missing = await readError(createFsArchiveSource(dir), NAME);
  expect(missing).toBeInstanceOf(ArchiveNotFoundError);
  expect((missing as Error).cause).toMatchObject({ code: 'ENOENT' });
  expect(classifyReadFailure(missing)).toBe('not-found');

  await fs.writeFile(path.join(dir, 'file'), 'x');
  const through = await readError(createFsArchiveSource(path.join(dir, 'file')), NAME);
  expect(through).toBeInstanceOf(ArchiveNotFoundError);
  expect((through as Error).cause).toMatchObject({ code: 'ENOTDIR' });
});

it('a directory where a file should be (EISDIR) is io-error, with the errno kept as cause', async () => {
  await fs.mkdir(path.join(dir, NAME));
  const err = await readError(createFsArchiveSource(dir), NAME);
  expect(err).toBeInstanceOf(ArchiveReadError);
  expect(err).toMatchObject({ reason: 'io-error', cause: { code: 'EISDIR' } });
  expect(classifyReadFailure(err)).toBe('io-error');
});

it('an unreadable file (chmod 000, EACCES) is access-denied', async () => {
  await fs.writeFile(path.join(dir, NAME), 'x');
  await fs.chmod(path.join(dir, NAME), 0o000);
  const adapter = path.resolve(__dirname, '../../../../src/adapters/fs/archive-store');
  const probe = path.join(dir, 'probe.ts');
  await fs.writeFile(
    probe,
    `import { createFsArchiveSource } from ${JSON.stringify(adapter)};
createFsArchiveSource(${JSON.stringify(dir)}).readHead(${JSON.stringify(NAME)}, 16).then(
  () => console.log('{}'),
  (e: any) => console.log(JSON.stringify({ name: e.name, reason: e.reason, code: e.cause?.code })),
);`,
  );
  // root ignores file modes through CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH, so as root the
  // read runs in a child without those two capabilities (util-linux `setpriv`). It stays uid 0,
  // so it can still read the repository wherever it is checked out (a `nobody` child could not
  // reach a clone under a 0700 directory such as `mktemp -d`).
  const node = [process.execPath, '--import', 'tsx', probe];
  const dropDac = ['--bounding-set=-dac_override,-dac_read_search'];
  const [command, ...args] =
    process.getuid?.() === 0
      ? ['setpriv', ...dropDac, '--inh-caps=-dac_override,-dac_read_search', ...node]
      : node;
  const child = spawnSync(command!, args, {
    cwd: path.resolve(__dirname, '../../../..'),
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(child.stderr).toBe('');
  expect(JSON.parse(child.stdout)).toEqual({
    name: 'ArchiveReadError',
    reason: 'access-denied',
    code: 'EACCES',
  });
});

it.each([
  ['EACCES', 'access-denied'],
  ['EPERM', 'access-denied'],
  ['EIO', 'io-error'],
  ['EMFILE', 'io-error'],
  [undefined, 'io-error'],
] as const)('errno %s means %s', (code, reason) => {
  expect(fsReadReason(code)).toBe(reason);
  const err = translateFsError(NAME, Object.assign(new Error('x'), { code }));
  expect(err).toMatchObject({ reason });
});
