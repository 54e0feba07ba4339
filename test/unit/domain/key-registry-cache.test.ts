/**
 * Authentication decisions are cached per (key, app) inside one registry: repeated requests
 * get the same decision without hashing again, and a reload (a new registry, e.g. after a
 * revocation) decides afresh.
 */
import { createKeyRegistry, hashApiKey } from '../../../src/domain/key-registry';

const data = (disabled: boolean) => ({
  apps: [{ id: 'web', disabled: false }],
  keys: [{ id: 'k', sha256: hashApiKey('secret'), apps: ['web'], disabled }],
});

it('repeats a decision from the cache and forgets it with the next registry', () => {
  const live = createKeyRegistry(data(false), 100);
  const first = live.decide('secret', 'web');
  expect(first).toMatchObject({ outcome: 'allowed', keyId: 'k', limit: 100 });
  expect(live.decide('secret', 'web')).toBe(first);
  expect(live.decide('secret', 'other')).toMatchObject({ outcome: 'unauthenticated' });
  expect(live.decide('wrong', 'web')).toMatchObject({ outcome: 'unauthenticated' });
  // The key store builds a new registry on every reload: the revocation applies at once.
  const revoked = createKeyRegistry(data(true), 100);
  expect(revoked.decide('secret', 'web')).toMatchObject({ outcome: 'forbidden' });
});

it('keeps no decision about an unknown key or app, and none for long credentials', () => {
  const live = createKeyRegistry(data(false), 100);
  for (let i = 0; i < 1000; i++) {
    expect(live.decide(`bogus-${i}-${'x'.repeat(7900)}`, 'web')).toMatchObject({
      reason: 'unknown-key',
    });
    expect(live.decide('secret', `app-${i}`)).toMatchObject({ reason: 'unknown-app' });
  }
  expect(live.cacheSize()).toEqual({ entries: 0, keyChars: 0 });
  // A known key is kept, once; a long valid key is decided correctly but never kept.
  expect(live.decide('secret', 'web')).toMatchObject({ outcome: 'allowed' });
  expect(live.decide('secret', 'web')).toMatchObject({ outcome: 'allowed' });
  expect(live.cacheSize()).toEqual({ entries: 1, keyChars: 'web\nsecret'.length });
  const long = 'k'.repeat(300);
  const withLong = createKeyRegistry(
    {
      apps: [{ id: 'web', disabled: false }],
      keys: [{ id: 'l', sha256: hashApiKey(long), apps: ['web'], disabled: false }],
    },
    100,
  );
  expect(withLong.decide(long, 'web')).toMatchObject({ outcome: 'allowed', keyId: 'l' });
  expect(withLong.cacheSize().entries).toBe(0);
});
