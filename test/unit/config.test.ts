import { ConfigError, loadConfig } from '../../src/config';
import { createSimulatorFrameRenderer } from '../../src/sim/simulator-frame';
import { SIM_LIMITS } from '../../src/sim/limits';

it('defaults to embedded mode with DESIGN.md §3.2 values', () => {
  const config = loadConfig({}, '/srv');
  expect(config).toMatchObject({
    port: 8080,
    host: '0.0.0.0',
    adminPort: 9464,
    // The admin listener is loopback unless a deployment says otherwise.
    adminHost: '127.0.0.1',
    embedded: true,
    dataDir: '/srv/data',
    archives: { kind: 'fs', dir: '/srv/data' },
    catalog: { kind: 'memory' },
    keys: { kind: 'file', path: '/srv/keys.json' },
    limiter: { kind: 'memory' },
    rateLimit: 1200,
    rateWindowS: 60,
    staleAfterS: 600,
    retentionS: 21600,
    simulate: true,
    corsOrigins: ['*'],
    drainS: 30,
    cacheControl: 'private',
    logLevel: 'info',
  });
  expect(Object.isFrozen(config)).toBe(true);
});

it('production mode: Redis and S3, no simulator, keys in Redis without a key file', () => {
  const config = loadConfig({
    REDIS_URL: 'redis://r:6379',
    S3_ENDPOINT: 'http://minio:9000',
    S3_ACCESS_KEY: 'a',
    S3_SECRET_KEY: 'b',
  });
  expect(config.embedded).toBe(false);
  expect(config.simulate).toBe(false);
  expect(config.keys).toEqual({ kind: 'redis', url: 'redis://r:6379' });
  expect(config.catalog).toEqual({ kind: 'redis', url: 'redis://r:6379' });
  expect(config.limiter).toEqual({ kind: 'redis', url: 'redis://r:6379' });
  expect(config.archives).toMatchObject({
    kind: 's3',
    bucket: 'radar',
    prefix: '',
    region: 'us-east-1',
  });
  expect(Object.isFrozen(config.archives)).toBe(true);
});

it('lists every problem at once', () => {
  let error: unknown;
  try {
    loadConfig({ PORT: 'abc', RADAR_RATE_LIMIT: '0', LOG_LEVEL: 'loud', RADAR_SIMULATE: 'maybe' });
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(ConfigError);
  const problems = (error as ConfigError).problems.join('\n');
  for (const name of ['PORT', 'RADAR_RATE_LIMIT', 'LOG_LEVEL', 'RADAR_SIMULATE'])
    expect(problems).toContain(name);
});

it('rejects half an S3 configuration and mixed CORS wildcards', () => {
  expect(() => loadConfig({ S3_ENDPOINT: 'http://x:9000' })).toThrow(/set together/);
  expect(() => loadConfig({ RADAR_CORS_ORIGINS: '*,https://a' })).toThrow(/RADAR_CORS_ORIGINS/);
});

it('simulator settings follow the one set of limits the simulate CLI and the simulator use', () => {
  const { backfill, cadenceS, maxZoom } = SIM_LIMITS;
  expect(loadConfig({}).simulator).toMatchObject({
    backfill: backfill.default,
    cadenceS: cadenceS.default,
    maxZoom: maxZoom.default,
  });
  const edge = loadConfig({
    RADAR_SIM_BACKFILL: String(backfill.max),
    RADAR_SIM_CADENCE_S: String(cadenceS.min),
    RADAR_SIM_MAX_ZOOM: String(maxZoom.max),
  }).simulator;
  expect(edge).toMatchObject({
    backfill: backfill.max,
    cadenceS: cadenceS.min,
    maxZoom: maxZoom.max,
  });
  // Each accepted value is one the simulator itself accepts (no late failure at start).
  expect(() => createSimulatorFrameRenderer({ maxZoom: edge.maxZoom })).not.toThrow();
  for (const [name, value] of [
    ['RADAR_SIM_BACKFILL', backfill.max + 1],
    ['RADAR_SIM_CADENCE_S', 90], // not whole minutes: the simulator would refuse it at start
    ['RADAR_SIM_MAX_ZOOM', maxZoom.max + 1],
  ] as const)
    expect(() => loadConfig({ [name]: String(value) })).toThrow(name);
});
