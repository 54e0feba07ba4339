/**
 * The command lines of the docs a new user follows (README.md, docs/*.md) stay honest where a
 * test can tell without running them: every `npm run <script>` names a script of package.json,
 * every `npx jest <path>` matches at least one test file, and every repository path a command
 * names (`test/fixtures/mrms/...`, `deploy/prometheus/rules/*.yml`) exists. The README's blocks
 * also paste into an interactive zsh, which does not take `#` as a comment: no comment and no
 * output line (`# {...}`) inside a command block.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const DOCS = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
/** Top-level folders of the repository: a token starting with one names a repository path. */
const REPO_DIRS = [
  '.ci',
  'deploy',
  'docs',
  'nginx',
  'openapi',
  'scripts',
  'src',
  'test',
  'tools',
  'web',
];

const packageJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

/** Every test file, relative to the root. */
function testFiles(dir = 'test'): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return testFiles(rel);
    return entry.name.endsWith('.test.ts') ? [rel] : [];
  });
}
const TESTS = testFiles();

interface Block {
  readonly doc: string;
  readonly line: number;
  readonly lines: readonly string[];
}

/** The shell blocks (```sh, ```bash) of a markdown file. */
function shellBlocks(doc: string): Block[] {
  const text = fs.readFileSync(path.join(ROOT, doc), 'utf8').split('\n');
  const blocks: Block[] = [];
  let open: { line: number; lines: string[] } | undefined;
  text.forEach((line, i) => {
    const fence = /^\s*```(\w*)/.exec(line);
    if (fence && open === undefined) {
      if (fence[1] === 'sh' || fence[1] === 'bash') open = { line: i + 1, lines: [] };
      else if (fence[1] !== '')
        open = { line: -1, lines: [] }; // another language: skipped
      else open = { line: -1, lines: [] };
      return;
    }
    if (fence && open !== undefined) {
      if (open.line > 0) blocks.push({ doc, line: open.line, lines: open.lines });
      open = undefined;
      return;
    }
    open?.lines.push(line);
  });
  return blocks;
}

/** A block's commands: continuation lines joined, comments dropped. */
function commands(block: Block): string[] {
  const joined = block.lines.join('\n').replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter((line) => line !== '');
}

/** Whitespace-separated words of a command, quotes and a trailing `;` or `)` removed. */
function words(command: string): string[] {
  return command
    .split(/\s+/)
    .map((w) => w.replace(/^['"(]+|['");]+$/g, ''))
    .filter((w) => w !== '');
}

/** Whether a repository path (a `*` in its last segment matches any name) exists. */
function exists(rel: string): boolean {
  const clean = rel.replace(/[.,:]+$/, '');
  if (!clean.includes('*')) return fs.existsSync(path.join(ROOT, clean));
  const dir = path.dirname(clean);
  const pattern = new RegExp(
    `^${path
      .basename(clean)
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')}$`,
  );
  return (
    fs.existsSync(path.join(ROOT, dir)) &&
    fs.readdirSync(path.join(ROOT, dir)).some((name) => pattern.test(name))
  );
}

const BLOCKS = DOCS.flatMap(shellBlocks);
const COMMANDS = BLOCKS.flatMap((block) =>
  commands(block).map((command) => ({ where: `${block.doc}:${block.line}`, command })),
);

it('finds the docs command blocks (a parser that finds none checks nothing)', () => {
  expect(BLOCKS.filter((b) => b.doc === 'README.md').length).toBeGreaterThanOrEqual(3);
  expect(COMMANDS.some((c) => c.command.startsWith('npx jest test/unit/deploy'))).toBe(true);
  expect(COMMANDS.some((c) => c.command.includes('npm run mrms -- --out'))).toBe(true);
});

it('every npm script a command runs exists in package.json', () => {
  const missing: string[] = [];
  for (const { where, command } of COMMANDS) {
    for (const match of command.matchAll(/\bnpm (?:run|run-script) ([\w:-]+)/g))
      if (!(match[1]! in packageJson.scripts)) missing.push(`${where}: ${match[1]}`);
    for (const match of command.matchAll(/\bnpm (start|test)\b/g))
      if (!(match[1]! in packageJson.scripts)) missing.push(`${where}: ${match[1]}`);
  }
  expect(missing).toEqual([]);
});

it('every path given to npx jest matches a test file', () => {
  const unmatched: string[] = [];
  for (const { where, command } of COMMANDS) {
    const at = command.indexOf('npx jest');
    if (at < 0) continue;
    for (const word of words(command.slice(at + 'npx jest'.length))) {
      if (word.startsWith('-') || word.startsWith('$')) continue;
      if (!TESTS.some((file) => file.startsWith(word.replace(/^\.\//, ''))))
        unmatched.push(`${where}: ${word}`);
    }
  }
  expect(unmatched).toEqual([]);
});

it('every repository path a command names exists', () => {
  const missing: string[] = [];
  for (const { where, command } of COMMANDS) {
    for (const word of words(command)) {
      const rel = word.replace(/^\.\//, '').replace(/^[A-Z_]+=/, '');
      if (!REPO_DIRS.some((dir) => rel.startsWith(`${dir}/`))) continue;
      if (rel.includes('<') || rel.includes('{') || rel.includes('$')) continue; // a placeholder
      if (!exists(rel)) missing.push(`${where}: ${rel}`);
    }
  }
  expect(missing).toEqual([]);
});

it("the README's command blocks paste into interactive zsh: no comments, no output lines", () => {
  const offending = BLOCKS.filter((b) => b.doc === 'README.md').flatMap((block) =>
    block.lines
      .map((line, i) => ({ line, at: `README.md:${block.line + 1 + i}` }))
      .filter(({ line }) => /(^|\s)#/.test(line))
      .map(({ line, at }) => `${at}: ${line}`),
  );
  expect(offending).toEqual([]);
});
