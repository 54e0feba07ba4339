import { createKeyRegistry } from '../../../src/domain/key-registry';
import * as commands from '../../../src/keys/key-commands';

it('creates apps and keys that authenticate, stores only hashes, and disables/removes them', () => {
  let data = commands.createApp({ apps: [], keys: [] }, 'web');
  data = commands.createKey(data, 'acme', ['web'], 'rk_secret', 50);
  expect(JSON.stringify(data)).not.toContain('rk_secret');
  expect(createKeyRegistry(data, 1).decide('rk_secret', 'web')).toMatchObject({
    outcome: 'allowed',
    limit: 50,
  });

  data = commands.setKeyDisabled(data, 'acme', true);
  expect(createKeyRegistry(data, 1).decide('rk_secret', 'web').outcome).toBe('forbidden');
  data = commands.setKeyDisabled(data, 'acme', false);
  data = commands.setAppDisabled(data, 'web', true);
  expect(createKeyRegistry(data, 1).decide('rk_secret', 'web').outcome).toBe('forbidden');
  data = commands.removeApp(data, 'web');
  expect(data.keys[0]!.apps).toEqual([]);
  data = commands.removeKey(data, 'acme');
  expect(data.keys).toEqual([]);
});

it('refuses duplicates, unknown apps and bad limits with operator messages', () => {
  const data = commands.createApp({ apps: [], keys: [] }, 'web');
  expect(() => commands.createApp(data, 'web')).toThrow(commands.KeyCommandError);
  expect(() => commands.createKey(data, 'k', ['nope'], 'x')).toThrow(/no app/);
  expect(() => commands.createKey(data, 'k', [], 'x')).toThrow(/--app/);
  expect(() => commands.createKey(data, 'k', ['web'], 'x', 0)).toThrow(/--limit/);
  expect(() => commands.removeKey(data, 'missing')).toThrow(/no key/);
});

it('sets, clears and requires allowed origins, refusing malformed ones', () => {
  let data = commands.createApp({ apps: [], keys: [] }, 'web');
  data = commands.createKey(data, 'acme', ['web'], 'rk_secret', undefined, {
    origins: ['https://maps.example.com'],
  });
  expect(data.keys[0]).toMatchObject({ origins: ['https://maps.example.com'] });
  expect(data.keys[0]!.requireOrigin).toBeUndefined();
  const decide = (origin: string | undefined) => {
    const decision = createKeyRegistry(data, 1).decide('rk_secret', 'web');
    return decision.outcome === 'allowed' && (decision.originPolicy?.allows(origin) ?? true);
  };
  expect(decide('https://maps.example.com')).toBe(true);
  expect(decide('https://a.acme.org')).toBe(false);
  data = commands.setKeyOrigins(data, 'acme', ['https://*.acme.org', 'https://*.acme.org']);
  expect(data.keys[0]!.origins).toEqual(['https://*.acme.org']);
  expect(decide('https://a.acme.org')).toBe(true);
  expect(decide(undefined)).toBe(true);
  data = commands.setKeyRequireOrigin(data, 'acme', true);
  expect(decide(undefined)).toBe(false);
  data = commands.setKeyOrigins(data, 'acme', []);
  expect(data.keys[0]!.origins).toBeUndefined();
  expect(data.keys[0]!.requireOrigin).toBe(true);
  data = commands.setKeyRequireOrigin(data, 'acme', false);
  expect(Object.keys(data.keys[0]!).sort()).toEqual(['apps', 'disabled', 'id', 'sha256']);
  expect(() => commands.setKeyOrigins(data, 'acme', ['https://example.com/'])).toThrow(
    commands.KeyCommandError,
  );
  expect(() => commands.setKeyOrigins(data, 'nope', [])).toThrow(/no key/);
});
