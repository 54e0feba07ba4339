/**
 * The registry format is strict: a misspelt or unknown field, a document without both arrays,
 * or a hash that is not exactly 64 hex digits is refused with a message naming the field, so a
 * typo can never load as a weaker registry (a lifted origin restriction, zero keys, a key
 * silently locked out). The same parser serves the key file and the Redis registry.
 */
import { hashApiKey } from '../../../src/domain/key-registry';
import { type KeyRegistryData } from '../../../src/domain/key-records';
import { KeyFileError, parseKeyFile, serializeKeyFile } from '../../../src/keys/key-file-format';

const HASH = hashApiKey('rk_secret-0123456789');

function registry(key: Record<string, unknown> = {}, top: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apps: [{ id: 'web', disabled: false }],
    keys: [{ id: 'k', sha256: HASH, apps: ['web'], disabled: false, ...key }],
    ...top,
  });
}

function problem(text: string): string {
  try {
    parseKeyFile(text);
  } catch (err) {
    expect(err).toBeInstanceOf(KeyFileError);
    return (err as Error).message;
  }
  throw new Error('parsed without error');
}

it('reads a valid registry, optional fields included', () => {
  const data = parseKeyFile(
    registry({ limit: 5, origins: ['https://maps.acme.org'], requireOrigin: true }),
  );
  expect(data.keys[0]).toMatchObject({ id: 'k', sha256: HASH, limit: 5, requireOrigin: true });
  expect(parseKeyFile('{"apps":[],"keys":[]}')).toEqual({ apps: [], keys: [] });
});

it.each([
  [
    'a misspelt key field',
    registry({ origin: ['https://maps.acme.org'] }),
    'keys[0].origin: unknown field',
  ],
  ['an unknown key field', registry({ rateLimit: 5 }), 'keys[0].rateLimit: unknown field'],
  [
    'an unknown app field',
    JSON.stringify({ apps: [{ id: 'web', disabeld: true }], keys: [] }),
    'apps[0].disabeld: unknown field',
  ],
  ['an unknown top-level field', registry({}, { key: [] }), 'key: unknown field'],
])('refuses %s, naming it', (_what, text, named) => {
  expect(problem(text)).toContain(named);
});

it.each([
  ['{}', ['apps: missing (required)', 'keys: missing (required)']],
  ['{"apps": []}', ['keys: missing (required)']],
  ['{"keys": []}', ['apps: missing (required)']],
  ['{"apps": {}, "keys": []}', ['apps: Invalid input: expected array']],
  ['[]', ['(document): Invalid input: expected object']],
  ['null', ['(document): Invalid input: expected object']],
])('refuses %s rather than load zero keys', (text, named) => {
  const message = problem(text);
  for (const part of named) expect(message).toContain(part);
});

it.each([
  ['63 hex digits', HASH.slice(0, 63)],
  ['65 hex digits', `${HASH}0`],
  ['a non-hex digit', `${HASH.slice(0, 63)}g`],
  ['a trailing newline', `${HASH}\n`],
  ['surrounding spaces', ` ${HASH} `],
  ['nothing', ''],
])('refuses a sha256 of %s, naming the field', (_what, sha256) => {
  expect(problem(registry({ sha256 }))).toContain(
    'keys[0].sha256: sha256 must be exactly 64 hex digits',
  );
});

it('accepts upper-case hex, as a hand-written file may have it', () => {
  expect(parseKeyFile(registry({ sha256: HASH.toUpperCase() })).keys[0]?.sha256).toBe(
    HASH.toUpperCase(),
  );
});

it('names a duplicate key id by its place', () => {
  const text = JSON.stringify({
    apps: [],
    keys: [
      { id: 'k', sha256: HASH, apps: [], disabled: false },
      { id: 'k', sha256: HASH, apps: [], disabled: false },
    ],
  });
  expect(problem(text)).toContain('keys[1].id: duplicate key id k');
});

it('never serialises a registry it would refuse to read', () => {
  const good: KeyRegistryData = parseKeyFile(registry());
  expect(parseKeyFile(serializeKeyFile(good))).toEqual(good);
  const typo = {
    apps: good.apps,
    keys: [{ ...good.keys[0]!, origin: ['https://maps.acme.org'] }],
  } as unknown as KeyRegistryData;
  expect(() => serializeKeyFile(typo)).toThrow('keys[0].origin: unknown field');
  const badHash = { apps: good.apps, keys: [{ ...good.keys[0]!, sha256: HASH.slice(1) }] };
  expect(() => serializeKeyFile(badHash)).toThrow(KeyFileError);
});

it('refuses two keys of one hash, in either case, naming both places', () => {
  const text = JSON.stringify({
    apps: [],
    keys: [
      { id: 'demo', sha256: HASH, disabled: true },
      { id: 'demo-copy', sha256: HASH.toUpperCase() },
    ],
  });
  expect(problem(text)).toContain('keys[1].sha256: duplicate key hash (as keys[0])');
});

it('refuses two apps of one id, naming both places', () => {
  const text = JSON.stringify({
    apps: [{ id: 'web' }, { id: 'web', disabled: true }],
    keys: [],
  });
  expect(problem(text)).toContain('apps[1].id: duplicate app id web (as apps[0])');
});

it.each([
  ['a terminal escape', 'k\u001b[2J'],
  ['a line break', 'k\nforged line'],
  ['a space', 'k k'],
  ['nothing', ''],
])('refuses a key id holding %s, naming the field', (_what, id) => {
  expect(problem(registry({ id }))).toContain('keys[0].id: ids use letters, digits');
});

it('refuses an app reference outside the id alphabet', () => {
  expect(problem(registry({ apps: ['web\u0007'] }))).toContain(
    'keys[0].apps[0]: ids use letters, digits',
  );
});
