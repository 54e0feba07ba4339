/**
 * The repository speaks for itself: no tracked file (docs, README, code comments, TSDoc, test
 * names, scripts, configuration) refers to a file outside the repository or to an issue number
 * of the project's tracker, since a reader of a clone can follow neither. Decisions are stated
 * in the repository's own words (docs/behaviour.md, openapi/openapi.yaml).
 *
 * The patterns below are assembled from pieces so that this file does not match itself; the
 * sample texts mark each planted reference with `@`, removed before scanning.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** Files never scanned: generated benchmark data and the lock file. */
const EXCLUDED = [/^tools\/bench\/results\//, /^package-lock\.json$/];

/** The tree holds several hundred tracked text files; far fewer means the listing broke. */
const MIN_FILES = 300;

/** Files the scan must include, so a listing that silently misses an area fails. */
const MUST_SCAN = [
  'README.md',
  'BENCHMARKS.md',
  'docs/behaviour.md',
  'docs/tiles.md',
  'openapi/openapi.yaml',
  'src/errors.ts',
  'test/harness/embedded-api.ts',
  'tools/bench/FINDINGS.md',
  'nginx/nginx.conf',
  '.ci/run',
];

const join = (...parts: string[]): string => parts.join('');
const INTERFACE_DOC = join('SP', 'EC');
const DESIGN_DOC = join('DES', 'IGN');
const SHARED_MRMS = join('..', '/shared/data/mrms');

/** One rule: what it finds and why that is not allowed. */
interface Rule {
  readonly pattern: RegExp;
  readonly reason: string;
}

const RULES: readonly Rule[] = [
  {
    pattern: new RegExp(`\\b(?:${INTERFACE_DOC}|${DESIGN_DOC})\\.md\\b`, 'i'),
    reason: 'names a document outside the repository',
  },
  {
    pattern: new RegExp(`\\b(?:${INTERFACE_DOC}|${DESIGN_DOC})\\b(?!\\.md)`),
    reason: 'refers to the outside interface or design document',
  },
  {
    pattern: new RegExp(join('\\bthe s', 'pec\\b|\\bs', 'pec says\\b'), 'i'),
    reason: 'an unnamed spec: name the document (the PMTiles spec, RFC 9110) or state the fact',
  },
  {
    pattern: new RegExp(join('(?<![\\w.-])/wo', 'rk/')),
    reason: 'an absolute path of the machine the project was built on',
  },
  {
    pattern: new RegExp(join('\\bis', 'sues?[\\s-]+#?\\d+'), 'i'),
    reason: 'an issue number',
  },
  {
    // Work slices were numbered like the issues they came from.
    pattern: new RegExp(join('\\bsli', 'ces? \\d+[a-z]?\\b'), 'i'),
    reason: 'a work-slice (issue) number',
  },
  {
    // A number after `#`, alone or in parentheses; with `owner/repo` before it, it names
    // another project's public tracker, and six digits (`#253140`) are a colour.
    pattern: new RegExp(join('(?<=^|[\\s([])', '#\\d{1,5}(?=[)\\].,:\\s]|$)')),
    reason: 'an issue or pull-request number',
  },
];

/** A relative path at the start of a token: `../x/y`, `../../z`. */
const RELATIVE_PATH = /(?<![\w./-])((?:\.\.\/)+[\w.-]+(?:\/[\w.-]+)*)/g;

/** How a tracked path may be named in a relative reference (imports omit the extension). */
const SUFFIXES = ['', '.ts', '.tsx', '.js', '.mjs', '.json', '/index.ts'];

/** One offending line. */
interface Finding {
  readonly file: string;
  readonly line: number;
  readonly text: string;
  readonly reason: string;
}

/** The tracked paths and every directory above them, to tell in-repository paths apart. */
interface Tree {
  has(repoPath: string): boolean;
}

function treeOf(files: readonly string[]): Tree {
  const known = new Set<string>(['.']);
  for (const file of files) {
    known.add(file);
    let dir = path.posix.dirname(file);
    while (dir !== '.' && !known.has(dir)) {
      known.add(dir);
      dir = path.posix.dirname(dir);
    }
  }
  return { has: (repoPath) => SUFFIXES.some((suffix) => known.has(repoPath + suffix)) };
}

/**
 * Whether a relative path leaves the repository: read from the file's own folder it climbs
 * above the root, or it names the sibling `shared` folder beside the checkout (however many
 * levels up) and nothing tracked answers to it from the file's folder. Other paths that stay
 * inside (imports, `dist/` outputs, hostile request paths in tests) are not references out.
 */
function leavesRepository(file: string, reference: string, tree: Tree): boolean {
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), reference));
  if (resolved === '..' || resolved.startsWith('../')) return true;
  return /^(?:\.\.\/)+shared(?:\/|$)/.test(reference) && !tree.has(resolved);
}

/** Every line of `text` (the content of `file`) that breaks the rule above, with the reason. */
function scanText(file: string, text: string, tree: Tree): Finding[] {
  const found: Finding[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const report = (reason: string) =>
      found.push({ file, line: index + 1, text: line.trim(), reason });
    for (const rule of RULES) if (rule.pattern.test(line)) report(rule.reason);
    for (const match of line.matchAll(RELATIVE_PATH)) {
      const reference = match[1]!;
      if (leavesRepository(file, reference, tree))
        report(`refers to ${reference}, outside the repository`);
    }
  });
  return found;
}

/** The tracked files the rule covers. */
function trackedFiles(): string[] {
  const listing = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
  return listing
    .split('\0')
    .filter((file) => file !== '' && !EXCLUDED.some((pattern) => pattern.test(file)));
}

describe('the scanner', () => {
  const tree = treeOf(['docs/behaviour.md', 'src/shared/bounded-memo.ts', 'src/domain/x.ts']);
  const plant = (text: string) => text.replace(/@/g, '');
  const reasons = (file: string, text: string) =>
    scanText(file, plant(text), tree).map((f) => `${f.line}: ${f.reason}`);

  it.each([
    ['docs/a.md', 'See `.@./shared/S@PEC.md` for the contract.'],
    ['docs/a.md', 'as S@PEC.md says'],
    ['src/a.ts', '// the key-file format of D@ESIGN.md §3.2'],
    ['src/a.ts', '// one point per request (D@ESIGN §3.1)'],
    ['src/a.ts', '/** Renders exactly the three S@PEC fields. */'],
    ['README.md', 'every decision where the s@pec is silent'],
    ['test/a.ts', ' * Fault matrix, Redis (is@sue 6 item 1): the real stack'],
    ['docs/b.md', 'before Is@sue 10, the profile'],
    ['docs/b.md', '(pre-is@sue-10 code)'],
    ['docs/b.md', '**Lean request pipeline (sli@ce 10, 2026-11-23 afternoon).**'],
    ['docs/b.md', 'fixed in (#@12)'],
    ['docs/b.md', 'and reverted in #@2836.'],
    ['docs/b.md', 'read /w@ork/shared/data'],
    ['docs/b.md', 'the samples in `.@./shared/data/mrms/sample.grib2.gz`'],
    ['docs/b.md', 'the golden decode in .@./.@./shared/data/mrms'],
    ['src/domain/x.ts', "import { y } from '.@./.@./.@./outside/y';"],
  ])('catches a planted reference in %s: %s', (file, text) => {
    expect(reasons(file, text)).not.toEqual([]);
  });

  it.each([
    ['src/domain/x.ts', "import { boundedMemo } from '.@./shared/bounded-memo';"],
    ['docs/a.md', 'See [behaviour](.@./docs/behaviour.md).'],
    ['docs/a.md', 'after trying 204 in linz/basemaps#2829 (mapbox/mapbox-gl-js#9304)'],
    ['docs/a.md', 'the PMTiles spec allows it; a range-spec such as `0-9`'],
    ['web/a.css', 'background: #253140; color: #888888;'],
    [
      'tools/bench/a.ts',
      "mark: { color: '#888888' }, x: path.resolve(__dirname, '.@./.@./dist/bin')",
    ],
    [
      'test/stack/a.test.ts',
      "const hostile = ['.@./secret', '/tiles/.@./status.json', '?.@./.@./'];",
    ],
    ['src/a.ts', 'const SPEC_MESSAGES = {}; // an issue with the socket'],
  ])('passes a legitimate line in %s: %s', (file, text) => {
    expect(reasons(file, text)).toEqual([]);
  });

  it('names a sibling shared folder even beside a setting that could point there', () => {
    expect(reasons('docs/a.md', `MRMS_SAMPLE_DIR (default \`.@./shared/data/mrms\`)`)).toEqual([
      `1: refers to ${SHARED_MRMS}, outside the repository`,
    ]);
  });

  it('names the file and line of each finding', () => {
    const found = scanText('docs/c.md', plant('one\ntwo is@sue 3\nthree'), tree);
    expect(found).toEqual([
      { file: 'docs/c.md', line: 2, text: plant('two is@sue 3'), reason: 'an issue number' },
    ]);
  });
});

describe('the repository', () => {
  const files = trackedFiles();

  it('lists every tracked file the rule covers', () => {
    expect(files.length).toBeGreaterThanOrEqual(MIN_FILES);
    expect(files).toEqual(expect.arrayContaining(MUST_SCAN));
  });

  it('catches a reference planted into a copy of a real doc, at its line', () => {
    const tree = treeOf(files);
    const lines = fs.readFileSync(path.join(ROOT, 'docs/behaviour.md'), 'utf8').split('\n');
    const at = Math.floor(lines.length / 2);
    lines.splice(at, 0, 'Retention is decided in D@ESIGN.md (is@sue 7).'.replace(/@/g, ''));
    const found = scanText('docs/behaviour.md', lines.join('\n'), tree);
    expect(found.map((f) => f.line)).toEqual([at + 1, at + 1]);
  });

  it('refers to no file outside it and to no issue number', () => {
    const tree = treeOf(files);
    const findings: string[] = [];
    let scanned = 0;
    for (const file of files) {
      const bytes = fs.readFileSync(path.join(ROOT, file));
      if (bytes.includes(0)) continue; // binary (images, archives)
      scanned++;
      for (const f of scanText(file, bytes.toString('utf8'), tree))
        findings.push(`${f.file}:${f.line}: ${f.reason}\n    ${f.text}`);
    }
    expect(scanned).toBeGreaterThanOrEqual(MIN_FILES);
    expect(findings.join('\n')).toBe('');
  });
});
