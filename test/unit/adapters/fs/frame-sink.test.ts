import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDirectorySink } from '../../../../src/adapters/fs/frame-sink';

describe('directory sink', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'frame-sink-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('publishes under {timestamp}.pmtiles and reports what it has', async () => {
    const sink = createDirectorySink(dir);
    expect(await sink.has('202611221400')).toBe(false);
    await sink.put('202611221400', Buffer.from('archive bytes'));
    expect(await sink.has('202611221400')).toBe(true);
    expect(readFileSync(join(dir, '202611221400.pmtiles'), 'utf8')).toBe('archive bytes');
    expect(readdirSync(dir)).toEqual(['202611221400.pmtiles']);
  });

  it('creates the directory when missing', async () => {
    const nested = join(dir, 'a', 'b');
    await createDirectorySink(nested).put('202611221400', Buffer.from('x'));
    expect(existsSync(join(nested, '202611221400.pmtiles'))).toBe(true);
  });

  it('never shows a partial archive under the final name', async () => {
    const bytes = Buffer.alloc(48 * 1024 * 1024, 7);
    const final = join(dir, '202611221400.pmtiles');
    const observations = { absent: 0, complete: 0, partial: 0, strayNames: [] as string[] };
    let writing = true;
    const observe = () => {
      try {
        const size = statSync(final).size;
        if (size === bytes.length) observations.complete++;
        else observations.partial++;
      } catch {
        observations.absent++;
      }
      for (const name of readdirSync(dir)) {
        if (
          name !== '202611221400.pmtiles' &&
          !/^\.202611221400\.pmtiles\.tmp-\d+-[0-9a-f]+$/.test(name)
        ) {
          observations.strayNames.push(name);
        }
      }
    };
    const poll = () => {
      if (!writing) return;
      observe();
      setImmediate(poll);
    };
    poll();
    try {
      await createDirectorySink(dir).put('202611221400', bytes);
    } finally {
      writing = false;
    }
    observe();
    expect(observations.absent).toBeGreaterThan(0); // the poll ran while writing
    expect(observations.partial).toBe(0);
    expect(observations.complete).toBeGreaterThan(0);
    expect(observations.strayNames).toEqual([]);
    expect(readdirSync(dir)).toEqual(['202611221400.pmtiles']); // no temporary file left
  });

  it('never overwrites an existing archive', async () => {
    writeFileSync(join(dir, '202611221400.pmtiles'), 'first');
    await createDirectorySink(dir).put('202611221400', Buffer.from('second'));
    expect(readFileSync(join(dir, '202611221400.pmtiles'), 'utf8')).toBe('first');
    expect(readdirSync(dir)).toEqual(['202611221400.pmtiles']);
  });

  it('lets exactly one of two racing writers publish, whole', async () => {
    const a = Buffer.alloc(4 * 1024 * 1024, 1);
    const b = Buffer.alloc(4 * 1024 * 1024, 2);
    const sink = createDirectorySink(dir);
    await Promise.all([
      sink.put('202611221400', a),
      createDirectorySink(dir).put('202611221400', b),
    ]);
    const got = readFileSync(join(dir, '202611221400.pmtiles'));
    expect(got.equals(a) || got.equals(b)).toBe(true);
    expect(readdirSync(dir)).toEqual(['202611221400.pmtiles']);
  });
});
