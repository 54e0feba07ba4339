import { createKeyRegistry, hashApiKey } from '../../../src/domain/key-registry';

const registry = createKeyRegistry(
  {
    apps: [
      { id: 'web', disabled: false },
      { id: 'off', disabled: true },
      { id: 'other', disabled: false },
    ],
    keys: [
      { id: 'k1', sha256: hashApiKey('secret-1'), apps: ['web', 'off'], disabled: false },
      {
        id: 'k2',
        sha256: hashApiKey('secret-2').toUpperCase(),
        apps: ['web'],
        limit: 5,
        disabled: true,
      },
    ],
  },
  1200,
);

it('allows a bound, enabled key and app with the default limit', () => {
  expect(registry.decide('secret-1', 'web')).toEqual({
    outcome: 'allowed',
    keyId: 'k1',
    appId: 'web',
    limit: 1200,
  });
});
it('401 for unknown key or app', () => {
  expect(registry.decide('nope', 'web').outcome).toBe('unauthenticated');
  expect(registry.decide('secret-1', 'nope').outcome).toBe('unauthenticated');
});
it('403 for disabled key, disabled app, unbound app', () => {
  expect(registry.decide('secret-2', 'web')).toMatchObject({
    outcome: 'forbidden',
    reason: 'key-disabled',
  });
  expect(registry.decide('secret-1', 'off')).toMatchObject({
    outcome: 'forbidden',
    reason: 'app-disabled',
  });
  expect(registry.decide('secret-1', 'other')).toMatchObject({
    outcome: 'forbidden',
    reason: 'app-not-bound',
  });
});
