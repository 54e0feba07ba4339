/**
 * The log lines an operator meets during a Redis outage are explained in docs/metrics.md, and
 * each explained message is one the code really writes (so the two cannot drift apart).
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const doc = fs.readFileSync(path.join(root, 'docs/metrics.md'), 'utf8').replace(/\s+/g, ' ');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(file) : file.endsWith('.ts') ? [file] : [];
  });
}
const source = sourceFiles(path.join(root, 'src'))
  .map((file) => fs.readFileSync(file, 'utf8'))
  .join('\n');

/** Messages the service logs itself. */
const SERVICE_LINES = [
  'mrms frame not published',
  'redis connection error; retrying',
  'redis connection restored',
  'catalog resync failed; serving the last good snapshot',
  'catalog resync succeeded again',
  'catalog index lost; serving the last good snapshot until ingest has rebuilt it',
];
/** ioredis's wording, carried in `err` by the lines above during an outage. */
const LIBRARY_MESSAGES = ["Stream isn't writeable and enableOfflineQueue options is false"];

it.each(SERVICE_LINES)('docs/metrics.md explains the log line %j, which src/ writes', (line) => {
  expect(doc).toContain(`\`${line}\``);
  expect(source).toContain(`'${line}'`);
});

it.each(LIBRARY_MESSAGES)('docs/metrics.md explains the ioredis message %j', (message) => {
  expect(doc).toContain(`\`${message}\``);
  const ioredis = fs.readFileSync(path.join(root, 'node_modules/ioredis/built/Redis.js'), 'utf8');
  expect(ioredis).toContain(message);
});
