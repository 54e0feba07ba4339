/** Allowed-origin patterns: validation, exact and wildcard matching, Referer fallback. */
import { KeyFileError, parseKeyFile } from '../../../src/keys/key-file-format';
import {
  ANY_ORIGIN,
  createOriginPolicy,
  originPatternProblem,
  requestOrigin,
} from '../../../src/domain/origin-policy';

it.each([
  'https://maps.example.com',
  'http://localhost:5173',
  'https://*.example.com',
  'https://*.example.co.uk:8443',
  'http://127.0.0.1:8080',
])('accepts %s', (pattern) => expect(originPatternProblem(pattern)).toBeUndefined());

it.each([
  'https://maps.example.com/',
  'https://maps.example.com/path',
  'HTTPS://maps.example.com',
  'https://Maps.example.com',
  'https://example.com:443',
  'http://example.com:80',
  'https://example.com:0',
  'https://example.com:99999',
  '*.example.com',
  'https://*.com',
  'https://a.*.example.com',
  'https://*example.com',
  'ftp://example.com',
  'example.com',
  '*',
  '',
])('refuses %s', (pattern) => expect(originPatternProblem(pattern)).toBeDefined());

describe('matching', () => {
  const policy = createOriginPolicy(
    ['https://maps.example.com', 'https://*.acme.org', 'http://localhost:5173'],
    false,
  );
  it.each([
    ['https://maps.example.com', true],
    ['HTTPS://MAPS.EXAMPLE.COM', true],
    ['https://a.acme.org', true],
    ['https://a.b.acme.org', true],
    ['http://localhost:5173', true],
    [undefined, true], // no Origin and no Referer: a server-side client
    ['https://acme.org', false], // wildcards match subdomains only
    ['http://a.acme.org', false], // scheme must match
    ['https://a.acme.org:8443', false], // port must match
    ['https://evilacme.org', false],
    ['https://acme.org.evil.com', false],
    ['https://x/.acme.org', false],
    ['https://maps.example.com:443', false],
    ['http://maps.example.com', false],
    ['https://other.example.com', false],
    ['null', false],
  ])('%s -> %s', (origin, allowed) => expect(policy.allows(origin)).toBe(allowed));

  it('requireOrigin refuses requests naming no origin', () => {
    const strict = createOriginPolicy(['https://maps.example.com'], true);
    expect(strict.allows(undefined)).toBe(false);
    expect(strict.allows('https://maps.example.com')).toBe(true);
    const anyButNamed = createOriginPolicy([], true);
    expect(anyButNamed.allows(undefined)).toBe(false);
    expect(anyButNamed.allows('https://anything.example')).toBe(true);
  });

  it('no patterns and no requirement: any origin', () => {
    expect(createOriginPolicy(undefined, undefined)).toBe(ANY_ORIGIN);
    expect(createOriginPolicy([], false).allows('https://x.example')).toBe(true);
  });
});

it('takes Origin, else the origin of Referer', () => {
  expect(requestOrigin('https://a.example', 'https://b.example/page')).toBe('https://a.example');
  expect(requestOrigin(undefined, 'https://b.example:8443/page?q=1')).toBe(
    'https://b.example:8443',
  );
  expect(requestOrigin(undefined, 'https://b.example:443/')).toBe('https://b.example');
  expect(requestOrigin(undefined, undefined)).toBeUndefined();
  expect(requestOrigin('', '')).toBeUndefined();
  expect(requestOrigin(undefined, 'not a url')).toBe('null');
  expect(requestOrigin(undefined, 'file:///home/x.html')).toBe('null');
});

it('the key file refuses malformed origins and keeps valid ones', () => {
  const key = { id: 'k', sha256: 'a'.repeat(64), apps: [] };
  const ok = parseKeyFile(
    JSON.stringify({
      apps: [],
      keys: [{ ...key, origins: ['https://*.acme.org'], requireOrigin: true }],
    }),
  );
  expect(ok.keys[0]).toMatchObject({ origins: ['https://*.acme.org'], requireOrigin: true });
  expect(() =>
    parseKeyFile(JSON.stringify({ apps: [], keys: [{ ...key, origins: ['https://acme.org/'] }] })),
  ).toThrow(KeyFileError);
  expect(() =>
    parseKeyFile(JSON.stringify({ apps: [], keys: [{ ...key, requireOrigin: 'yes' }] })),
  ).toThrow(/keys\[0\]\.requireOrigin/);
});
