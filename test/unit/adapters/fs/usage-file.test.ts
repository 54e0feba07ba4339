import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  createFileUsageStore,
  parseUsageFile,
  UsageFileError,
} from '../../../../src/adapters/fs/usage-file';
import { HOUR_MS, hourLabel, type UsageEntry } from '../../../../src/domain/usage';
import { createSilentLogger } from '../../../../src/logger';

const H = 493_000;
let dir: string;
let file: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'usage-file-'));
  file = path.join(dir, 'usage.json');
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

const entry = (keyId: string, hour: number, requests: number, bytes = 0): UsageEntry => ({
  keyId,
  hour,
  counts: { requests, bytes, 'status:200': requests },
});

function store(now = () => (H + 1) * HOUR_MS, retentionDays = 2) {
  return createFileUsageStore({ file, retentionDays, logger: createSilentLogger(), now });
}

it('adds batches up per key and hour and reads them back', async () => {
  const s = store();
  await s.apply({ source: 'a', seq: 1, entries: [entry('acme', H, 2, 10), entry('x', H, 1)] });
  await s.apply({
    source: 'b',
    seq: 1,
    entries: [entry('acme', H, 3, 5), entry('acme', H + 1, 1)],
  });
  const all = await s.read(H, H + 1);
  expect(all).toEqual(
    expect.arrayContaining([
      { keyId: 'acme', hour: H, counts: { requests: 5, bytes: 15, 'status:200': 5 } },
      { keyId: 'x', hour: H, counts: { requests: 1, bytes: 0, 'status:200': 1 } },
      { keyId: 'acme', hour: H + 1, counts: { requests: 1, bytes: 0, 'status:200': 1 } },
    ]),
  );
  expect(all).toHaveLength(3);
  expect(await s.read(H + 1, H + 1, ['acme'])).toHaveLength(1);
  expect(await s.read(H, H, ['nobody'])).toEqual([]);
  expect(await s.top(H, 1)).toEqual([{ keyId: 'acme', requests: 5 }]);
});

it('applies a batch number once per source: a batch sent again adds nothing', async () => {
  const s = store();
  const batch = { source: 'a', seq: 1, entries: [entry('acme', H, 2)] };
  await s.apply(batch);
  await s.apply(batch);
  await s.apply({ ...batch, seq: 2 });
  await s.apply({ ...batch, seq: 1 });
  expect((await s.read(H, H))[0]!.counts.requests).toBe(4);
});

it('drops hours past the retention at a write', async () => {
  let now = (H + 1) * HOUR_MS;
  const s = store(() => now, 1);
  await s.apply({ source: 'a', seq: 1, entries: [entry('acme', H, 1)] });
  now = (H + 1) * HOUR_MS + 86_400_000 + 1;
  await s.apply({ source: 'a', seq: 2, entries: [entry('acme', H + 25, 1)] });
  const text = JSON.parse(await fs.readFile(file, 'utf8'));
  expect(Object.keys(text.hours)).toEqual([hourLabel(H + 25)]);
});

it('reads a missing file as no usage', async () => {
  expect(await store().read(H, H)).toEqual([]);
  expect(await store().top(H, 10)).toEqual([]);
});

it('refuses to read an invalid file, and moves it aside instead of overwriting it', async () => {
  await fs.writeFile(
    file,
    '{"version":1,"applied":{},"hours":{"2026033116":{"acme":{"requests":-1}}}}',
  );
  await expect(store().read(H, H)).rejects.toThrow(UsageFileError);
  await store().apply({ source: 'a', seq: 1, entries: [entry('acme', H, 1)] });
  const names = await fs.readdir(dir);
  const aside = names.find((n) => n.startsWith('usage.json.invalid-'));
  expect(aside).toBeDefined();
  expect(await fs.readFile(path.join(dir, aside!), 'utf8')).toContain('"requests":-1');
  expect((await store().read(H, H))[0]!.counts.requests).toBe(1);
});

it('names the problem of an invalid file', () => {
  expect(() => parseUsageFile('nope', 'u.json')).toThrow(/usage file u.json is not JSON/);
  expect(() => parseUsageFile('{"version":1,"applied":{},"hours":{"20261":{}}}', 'u.json')).toThrow(
    /usage file u.json is invalid: hours.20261: /,
  );
  expect(() => parseUsageFile('{"version":2,"applied":{},"hours":{}}', 'u.json')).toThrow(
    /version/,
  );
});

it('never leaves a temp file behind', async () => {
  const s = store();
  for (let seq = 1; seq <= 5; seq++)
    await s.apply({ source: 'a', seq, entries: [entry('acme', H, 1)] });
  expect(await fs.readdir(dir)).toEqual(['usage.json']);
});

it('picks up a file edited, replaced or removed by someone else', async () => {
  const s = store();
  const requests = async () => (await s.read(H, H))[0]?.counts.requests;
  const edit = async (requestsNow: number) => {
    const data = JSON.parse(await fs.readFile(file, 'utf8'));
    data.hours[hourLabel(H)].acme.requests = requestsNow;
    return JSON.stringify(data);
  };
  await s.apply({ source: 'a', seq: 1, entries: [entry('acme', H, 1)] });
  expect(await requests()).toBe(1);

  // Edited in place to a longer text.
  await fs.writeFile(file, await edit(40));
  expect(await requests()).toBe(40);
  expect(await s.top(H, 1)).toEqual([{ keyId: 'acme', requests: 40 }]);
  await s.apply({ source: 'a', seq: 2, entries: [entry('acme', H, 1)] });
  expect(await requests()).toBe(41);

  // Edited in place to a text of the same length: the modification time tells.
  await fs.writeFile(file, await edit(17));
  const past = new Date(Date.now() - 3_600_000);
  await fs.utimes(file, past, past);
  expect(await requests()).toBe(17);

  // Replaced by another file (a rename over it).
  const other = path.join(dir, 'other.json');
  await fs.writeFile(other, await edit(25));
  await fs.rename(other, file);
  expect(await requests()).toBe(25);
  expect(await s.top(H, 1)).toEqual([{ keyId: 'acme', requests: 25 }]);

  // Removed: no usage, and the next batch starts a new file.
  await fs.rm(file);
  expect(await s.read(H, H)).toEqual([]);
  expect(await s.top(H, 1)).toEqual([]);
  await s.apply({ source: 'a', seq: 3, entries: [entry('acme', H, 2)] });
  expect(await requests()).toBe(2);
});

it('hands out copies: changing what read returned changes nothing stored', async () => {
  const s = store();
  await s.apply({ source: 'a', seq: 1, entries: [entry('acme', H, 1)] });
  const [first] = await s.read(H, H);
  (first!.counts as Record<string, number>).requests = 99;
  expect((await s.read(H, H))[0]!.counts.requests).toBe(1);
  await s.apply({ source: 'a', seq: 2, entries: [entry('acme', H, 1)] });
  expect((await s.read(H, H))[0]!.counts.requests).toBe(2);
});
