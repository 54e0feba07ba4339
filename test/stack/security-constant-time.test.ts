/**
 * Keys are compared as SHA-256 hashes in constant time (docs/security.md). Behaviour: the
 * registry decides on the hash of the presented key, and the deciding comparison is
 * `crypto.timingSafeEqual` over the two 32-byte digests (observed with a spy on node:crypto,
 * the real function still runs). A map lookup keyed by the presented key's hash finds the
 * candidate first; its timing depends only on that hash, which an attacker cannot steer
 * towards a stored key's hash, so it leaks nothing about stored keys. Source: the key-deciding
 * code has no `===` on hashes, and both serving key stores decide through this registry.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createKeyRegistry, hashApiKey } from '../../src/domain/key-registry';
import { type KeyRegistryData } from '../../src/domain/key-records';

const KEY = 'rk_constant-time-key-0123456789';
const data: KeyRegistryData = {
  apps: [{ id: 'web', disabled: false }],
  keys: [{ id: 'k', sha256: hashApiKey(KEY), apps: ['web'], disabled: false }],
};

afterEach(() => jest.restoreAllMocks());

it('hashApiKey is the hex SHA-256 of the UTF-8 key', () => {
  expect(hashApiKey(KEY)).toBe(
    crypto.createHash('sha256').update(Buffer.from(KEY, 'utf8')).digest('hex'),
  );
  expect(hashApiKey('ключ')).toBe(
    crypto.createHash('sha256').update(Buffer.from('ключ', 'utf8')).digest('hex'),
  );
});

it('the deciding comparison is timingSafeEqual over the two 32-byte digests', () => {
  const spy = jest.spyOn(crypto, 'timingSafeEqual');
  const registry = createKeyRegistry(data, 10);
  expect(registry.decide(KEY, 'web')).toMatchObject({ outcome: 'allowed', keyId: 'k' });
  expect(spy).toHaveBeenCalledTimes(1);
  const [a, b] = spy.mock.calls[0] as [Buffer, Buffer];
  const digest = crypto.createHash('sha256').update(KEY).digest();
  expect(Buffer.from(a).equals(digest)).toBe(true);
  expect(Buffer.from(b).equals(digest)).toBe(true);
});

it('stored hashes match in any hex case; presented keys are exact (no case folding, no trimming)', () => {
  const upper = createKeyRegistry(
    { ...data, keys: [{ ...data.keys[0]!, sha256: hashApiKey(KEY).toUpperCase() }] },
    10,
  );
  expect(upper.decide(KEY, 'web').outcome).toBe('allowed');
  for (const presented of [
    KEY.toUpperCase(),
    `${KEY} `,
    ` ${KEY}`,
    KEY.slice(0, -1),
    `${KEY}0`,
    hashApiKey(KEY),
  ]) {
    expect(upper.decide(presented, 'web')).toEqual({
      outcome: 'unauthenticated',
      reason: 'unknown-key',
    });
  }
});

it('the stored hash, presented as a key, does not authenticate', () => {
  expect(createKeyRegistry(data, 10).decide(hashApiKey(KEY), 'web').outcome).toBe(
    'unauthenticated',
  );
});

it('source: keys are decided only through the registry, and hashes are never compared with ===', () => {
  const src = path.resolve(__dirname, '../../src');
  const registry = fs.readFileSync(path.join(src, 'domain/key-registry.ts'), 'utf8');
  expect(registry).toMatch(/timingSafeEqual\(/);
  for (const file of [
    'domain/key-registry.ts',
    'adapters/fs/key-store.ts',
    'adapters/redis/key-store.ts',
    'http/core/authorise.ts',
  ]) {
    const text = fs.readFileSync(path.join(src, file), 'utf8');
    // No direct equality on a hash, digest or key value (checks against undefined/null aside).
    const equalities =
      text.match(
        /\b(sha256|hash|digest|apiKey)\s*[!=]==\s*\w+|\w+\s*[!=]==\s*(sha256|hash|digest|apiKey)\b/gi,
      ) ?? [];
    expect(equalities.filter((e) => !/\b(undefined|null)\b/.test(e))).toEqual([]);
  }
  for (const file of ['adapters/fs/key-store.ts', 'adapters/redis/key-store.ts']) {
    expect(fs.readFileSync(path.join(src, file), 'utf8')).toMatch(/createKeyRegistry\(/);
  }
});
