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
