import { ConfigError, loadConfig } from '../../src/config';
import { createSimulatorFrameRenderer } from '../../src/sim/simulator-frame';
import { SIM_LIMITS } from '../../src/sim/limits';

it('defaults to embedded mode with the documented values, one slice per part', () => {
  const config = loadConfig({}, '/srv');
  expect(config).toMatchObject({
    http: {
      port: 8080,
      host: '0.0.0.0',
      corsOrigins: ['*'],
      cacheControl: 'private',
      trustProxy: false,
      publicUrl: undefined,
      publicHosts: [],
      requestTimeoutS: 30,
      sendTimeoutS: 30,
      drainS: 30,
      drainIdleS: 5,
    },
    // The admin listener is loopback unless a deployment says otherwise.
    admin: { port: 9464, host: '127.0.0.1' },
    embedded: true,
    dataDir: '/srv/data',
    archives: { kind: 'fs', dir: '/srv/data' },
    catalog: { kind: 'memory' },
    keys: { kind: 'file', path: '/srv/keys.json' },
    limiter: { kind: 'memory' },
    rate: { limit: 1200, windowS: 60 },
    publication: { staleAfterS: 600, retentionS: 21600 },
    reads: { cacheMb: 64, perKey: 128, perClient: 32 },
    ingestPollS: 5,
    simulate: true,
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
  // Each Redis port carries its technology's settings, and nothing else.
  const redis = { kind: 'redis', url: 'redis://r:6379', timeoutMs: 500 };
  expect(config.keys).toEqual({ ...redis, resyncS: 5 });
  expect(config.catalog).toEqual({ ...redis, resyncS: 5 });
  expect(config.limiter).toEqual(redis);
  expect(config.archives).toMatchObject({
    kind: 's3',
    bucket: 'radar',
    prefix: '',
    region: 'us-east-1',
    timeoutMs: 2000,
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

describe('usage', () => {
  it('counts by default into usage.json beside the key file without Redis, into Redis with it', () => {
    expect(loadConfig({}, '/srv').usage).toEqual({
      enabled: true,
      flushS: 5,
      retentionDays: 35,
      maxEntries: 20_000,
      store: { kind: 'file', path: '/srv/usage.json' },
    });
    expect(loadConfig({ RADAR_KEYS_FILE: 'etc/keys.json' }, '/srv').usage.store).toEqual({
      kind: 'file',
      path: '/srv/etc/usage.json',
    });
    expect(
      loadConfig({ RADAR_KEYS_FILE: '/etc/k.json', RADAR_USAGE_FILE: 'u/usage.json' }, '/srv').usage
        .store,
    ).toEqual({ kind: 'file', path: '/srv/u/usage.json' });
    expect(
      loadConfig({ REDIS_URL: 'redis://r:6379', RADAR_USAGE_FILE: '/x.json' }).usage.store,
    ).toEqual({ kind: 'redis', url: 'redis://r:6379', timeoutMs: 500 });
  });

  it('reads the switch, the flush period, the retention and the bound, and refuses nonsense', () => {
    expect(
      loadConfig({
        RADAR_USAGE: '0',
        RADAR_USAGE_FLUSH_S: '0.5',
        RADAR_USAGE_RETENTION_DAYS: '400',
        RADAR_USAGE_MAX_ENTRIES: '1000',
      }).usage,
    ).toMatchObject({ enabled: false, flushS: 0.5, retentionDays: 400, maxEntries: 1000 });
    for (const [name, value] of [
      ['RADAR_USAGE_FLUSH_S', '0'],
      ['RADAR_USAGE_FLUSH_S', 'soon'],
      ['RADAR_USAGE_RETENTION_DAYS', '0'],
      ['RADAR_USAGE_RETENTION_DAYS', '1.5'],
      ['RADAR_USAGE_MAX_ENTRIES', '10'],
      ['RADAR_USAGE', 'yes'],
    ])
      expect(() => loadConfig({ [name!]: value })).toThrow(new RegExp(name!));
  });
});

describe('the MRMS follower (config.mrms) and RADAR_SOURCE', () => {
  it('defaults to NOAA’s open-data bucket, anonymous, and the simulator in-process', () => {
    const config = loadConfig({}, '/srv');
    expect(config.radarSource).toBe('simulator');
    expect(config.mrms).toEqual({
      source: {
        kind: 's3',
        endpoint: 'https://s3.amazonaws.com',
        region: 'us-east-1',
        bucket: 'noaa-mrms-pds',
        prefix: 'CONUS/ReflectivityAtLowestAltitude_00.50/',
      },
      productLevel: 'ReflectivityAtLowestAltitude_00.50',
      backfill: 30,
      pollS: 2,
      maxZoom: 7,
      workers: 1,
      timeoutS: 30,
      // The flag of each frame: NOAA's PrecipFlag folder beside the reflectivity's.
      types: {
        productLevel: 'PrecipFlag_00.00',
        source: {
          kind: 's3',
          endpoint: 'https://s3.amazonaws.com',
          region: 'us-east-1',
          bucket: 'noaa-mrms-pds',
          prefix: 'CONUS/PrecipFlag_00.00/',
        },
        waitS: 60,
      },
    });
    expect(Object.isFrozen(config.mrms.source)).toBe(true);
  });

  it('reads the flag product and its wait, or none for untyped frames', () => {
    const dir = loadConfig(
      { MRMS_SOURCE: 'CONUS/ReflectivityAtLowestAltitude_00.50', MRMS_TYPE_WAIT_S: '0' },
      '/srv',
    ).mrms;
    expect(dir.types).toEqual({
      productLevel: 'PrecipFlag_00.00',
      source: { kind: 'dir', dir: '/srv/CONUS/PrecipFlag_00.00' },
      waitS: 0,
    });
    const other = loadConfig({ MRMS_SOURCE: '/srv/feed', MRMS_TYPE_PRODUCT: 'Flag_01.00' }).mrms;
    expect(other.types).toEqual({
      productLevel: 'Flag_01.00',
      source: { kind: 'dir', dir: '/srv/feed' },
      waitS: 60,
    });
    expect(loadConfig({ MRMS_TYPE_PRODUCT: 'none' }).mrms.types).toBeUndefined();
    expect(() => loadConfig({ MRMS_TYPE_PRODUCT: 'PrecipFlag' })).toThrow(/MRMS_TYPE_PRODUCT/);
    expect(() => loadConfig({ MRMS_TYPE_WAIT_S: '601' })).toThrow(/MRMS_TYPE_WAIT_S/);
    expect(() => loadConfig({ MRMS_TYPE_WAIT_S: '-1' })).toThrow(/MRMS_TYPE_WAIT_S/);
    expect(() => loadConfig({ MRMS_TYPE_WAIT_S: 'soon' })).toThrow(/MRMS_TYPE_WAIT_S/);
  });

  it('reads s3://, http(s):// and directory sources, and the product a prefix names', () => {
    const s3 = loadConfig({
      RADAR_SOURCE: 'mrms',
      MRMS_SOURCE: 's3://mirror/CONUS/MergedReflectivityQCComposite_00.50',
      MRMS_S3_ENDPOINT: 'http://127.0.0.1:9000/',
      MRMS_BACKFILL: '5',
      MRMS_WORKERS: '2',
    });
    expect(s3.radarSource).toBe('mrms');
    expect(s3.mrms).toMatchObject({
      source: {
        kind: 's3',
        endpoint: 'http://127.0.0.1:9000',
        bucket: 'mirror',
        prefix: 'CONUS/MergedReflectivityQCComposite_00.50/',
      },
      productLevel: 'MergedReflectivityQCComposite_00.50',
      backfill: 5,
      workers: 2,
    });
    const http = loadConfig({
      MRMS_SOURCE: 'https://mrms.ncep.noaa.gov/data/2D/ReflectivityAtLowestAltitude',
    });
    expect(http.mrms.source).toEqual({
      kind: 'http',
      url: 'https://mrms.ncep.noaa.gov/data/2D/ReflectivityAtLowestAltitude/',
    });
    expect(http.mrms.pollS).toBe(30); // a whole index page per look: not every 2 s
    const dir = loadConfig({ MRMS_SOURCE: 'feed', MRMS_POLL_S: '7' }, '/srv');
    expect(dir.mrms.source).toEqual({ kind: 'dir', dir: '/srv/feed' });
    expect(dir.mrms.pollS).toBe(7);
    expect(
      loadConfig({ MRMS_SOURCE: 's3://noaa-mrms-pds/CONUS/X_00.50/', MRMS_PRODUCT: 'Y_01.00' }).mrms
        .productLevel,
    ).toBe('Y_01.00');
  });

  it('refuses bad MRMS settings at start, naming each', () => {
    let error: unknown;
    try {
      loadConfig({
        RADAR_SOURCE: 'nexrad',
        MRMS_SOURCE: 'ftp://example.org/mrms/',
        MRMS_PRODUCT: 'Reflectivity',
        MRMS_BACKFILL: '0',
        MRMS_WORKERS: '3',
        MRMS_POLL_S: '0',
        MRMS_S3_ENDPOINT: 's3.amazonaws.com',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['RADAR_SOURCE', 'MRMS_BACKFILL', 'MRMS_WORKERS', 'MRMS_POLL_S'])
      expect(problems).toContain(name);
    expect(() => loadConfig({ MRMS_SOURCE: 'ftp://example.org/mrms/' })).toThrow(
      'MRMS_SOURCE: "ftp://example.org/mrms/": use s3://, http(s):// or a directory path',
    );
    expect(() => loadConfig({ MRMS_SOURCE: 's3://No_Such/x/' })).toThrow(/MRMS_SOURCE: "No_Such"/);
    expect(() => loadConfig({ MRMS_PRODUCT: 'Reflectivity' })).toThrow(/MRMS_PRODUCT/);
    expect(() => loadConfig({ MRMS_S3_ENDPOINT: 's3.amazonaws.com' })).toThrow(/MRMS_S3_ENDPOINT/);
    expect(() => loadConfig({ MRMS_SOURCE: 'https://u:p@host/x/' })).toThrow(/credentials/);
  });
});

describe('the producers’ nowcast (config.nowcast)', () => {
  it('is on with leads 10 to 60 minutes by default; NOWCAST=0 turns it off', () => {
    expect(loadConfig({}).nowcast).toEqual({ enabled: true, leads: [10, 20, 30, 40, 50, 60] });
    expect(loadConfig({ NOWCAST: '0' }).nowcast.enabled).toBe(false);
    expect(loadConfig({ NOWCAST_LEADS: ' 2, 30 ,120' }).nowcast.leads).toEqual([2, 30, 120]);
  });

  it('refuses leads that are not ascending multiples of the 2-minute step, naming the bad one', () => {
    for (const leads of ['10,15', '0', '10,10', '20,10', '362', 'soon', '10,', '-10', '1e1'])
      expect(() => loadConfig({ NOWCAST_LEADS: leads })).toThrow(/NOWCAST_LEADS/);
    expect(() => loadConfig({ NOWCAST_LEADS: '10,15' })).toThrow(/"15" is not a lead/);
    expect(() => loadConfig({ NOWCAST: 'maybe' })).toThrow(/NOWCAST/);
  });
});
