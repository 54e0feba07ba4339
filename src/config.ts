/**
 * Configuration: the only module that reads the environment. `loadConfig` validates every
 * variable (docs/configuration.md) at once and returns a frozen object, so a bad deployment
 * fails at start with one message listing every problem instead of misbehaving later.
 */
import path from 'node:path';
import { z } from 'zod';
import type { ArchivesBackend, Config } from './config-types';
import { deepFreeze } from './shared/deep-freeze';
import { publicHost } from './shared/public-host';
import { USAGE_FILE_NAME } from './domain/usage';
import { type IntegerLimit, limitProblem } from './shared/integer-limit';
import { NOWCAST_LEADS_SETTING } from './forecast/nowcast-leads';
import { SIM_LIMITS } from './sim/limits';
import { PRODUCT_LEVEL } from './sources/mrms/mrms-file-name';
import {
  DEFAULT_TYPE_PRODUCT,
  defaultPollS,
  impliedProductLevel,
  MRMS_LIMITS,
  NOAA_MRMS_ENDPOINT,
  parseMrmsSource,
  typeSource,
} from './sources/mrms/mrms-settings';

export type * from './config-types';

const boolFlag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');
const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
/** An integer setting checked against `limit` (optional: some defaults depend on others). */
const limited = (limit: IntegerLimit) =>
  z.coerce.number().superRefine((value, ctx) => {
    const problem = limitProblem(limit, value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });
/** A simulator setting, checked against the limits the simulate CLI uses too. */
const simSetting = (setting: 'backfill' | 'cadenceS' | 'maxZoom') =>
  limited(SIM_LIMITS[setting]).default(SIM_LIMITS[setting].default);
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const schema = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  ADMIN_PORT: port.default(9464),
  ADMIN_HOST: z.string().min(1).default('127.0.0.1'),
  REDIS_URL: optionalText,
  S3_ENDPOINT: optionalText,
  S3_ACCESS_KEY: optionalText,
  S3_SECRET_KEY: optionalText,
  S3_BUCKET: z.string().min(3).default('radar'),
  S3_PREFIX: z.string().default(''),
  S3_REGION: z.string().min(1).default('us-east-1'),
  RADAR_DATA_DIR: z.string().min(1).default('./data'),
  RADAR_KEYS_FILE: optionalText,
  RADAR_RATE_LIMIT: positiveInt.default(1200),
  RADAR_RATE_WINDOW_S: positiveInt.default(60),
  RADAR_STALE_AFTER_S: positiveInt.default(600),
  RADAR_RETENTION_S: positiveInt.default(21600),
  RADAR_FORECAST_GRACE_S: z.coerce.number().int().min(0).default(600),
  RADAR_SIMULATE: boolFlag.optional(),
  RADAR_SIM_BACKFILL: simSetting('backfill'),
  RADAR_SIM_CADENCE_S: simSetting('cadenceS'),
  RADAR_SIM_MAX_ZOOM: simSetting('maxZoom'),
  RADAR_CORS_ORIGINS: z.string().min(1).default('*'),
  RADAR_DRAIN_S: z.coerce.number().min(0).default(30),
  RADAR_DRAIN_IDLE_S: z.coerce.number().min(0).default(5),
  RADAR_CACHE_CONTROL: z.enum(['private', 'public']).default('private'),
  RADAR_REDIS_TIMEOUT_MS: positiveInt.default(500),
  RADAR_S3_TIMEOUT_MS: positiveInt.default(2000),
  RADAR_RESYNC_S: positiveInt.default(5),
  RADAR_INGEST_POLL_S: positiveInt.default(5),
  RADAR_TRUST_PROXY: boolFlag.default(false),
  RADAR_PUBLIC_URL: optionalText,
  RADAR_PUBLIC_HOSTS: z.string().default(''),
  RADAR_CACHE_MB: z.coerce.number().int().min(0).max(65536).default(64),
  RADAR_REQUEST_TIMEOUT_S: positiveInt.default(30),
  RADAR_SEND_TIMEOUT_S: positiveInt.default(30),
  RADAR_STORE_READS_PER_KEY: positiveInt.default(128),
  RADAR_STORE_READS_PER_CLIENT: positiveInt.default(32),
  RADAR_USAGE: boolFlag.default(true),
  RADAR_USAGE_FLUSH_S: z.coerce.number().min(0.1).max(3600).default(5),
  RADAR_USAGE_RETENTION_DAYS: z.coerce.number().int().min(1).max(3660).default(35),
  RADAR_USAGE_MAX_ENTRIES: z.coerce.number().int().min(100).max(10_000_000).default(20_000),
  RADAR_USAGE_FILE: optionalText,
  RADAR_SOURCE: z.enum(['simulator', 'mrms']).default('simulator'),
  MRMS_SOURCE: optionalText,
  MRMS_S3_ENDPOINT: z.string().min(1).default(NOAA_MRMS_ENDPOINT),
  MRMS_S3_REGION: z.string().min(1).default('us-east-1'),
  MRMS_PRODUCT: optionalText,
  MRMS_BACKFILL: limited(MRMS_LIMITS.backfill).default(MRMS_LIMITS.backfill.default),
  MRMS_POLL_S: limited(MRMS_LIMITS.pollS).optional(),
  MRMS_MAX_ZOOM: limited(MRMS_LIMITS.maxZoom).default(MRMS_LIMITS.maxZoom.default),
  MRMS_WORKERS: limited(MRMS_LIMITS.workers).default(MRMS_LIMITS.workers.default),
  MRMS_TIMEOUT_S: limited(MRMS_LIMITS.timeoutS).default(MRMS_LIMITS.timeoutS.default),
  MRMS_TYPE_PRODUCT: optionalText,
  MRMS_TYPE_WAIT_S: limited(MRMS_LIMITS.typeWaitS).default(MRMS_LIMITS.typeWaitS.default),
  NOWCAST: boolFlag.default(true),
  NOWCAST_LEADS: NOWCAST_LEADS_SETTING,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** Every environment variable the service reads (deployment manifests may set only these). */
export const CONFIG_VARIABLES: readonly string[] = Object.freeze(Object.keys(schema.shape));

/** Thrown by `loadConfig`; the message lists every problem, one per line. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates `env` (normally `process.env`). Throws `ConfigError`. */
export function loadConfig(env: NodeJS.ProcessEnv, cwd: string = process.cwd()): Config {
  const parsed = schema.safeParse(env);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push(`${issue.path.join('.') || '(environment)'}: ${issue.message}`);
    }
    throw new ConfigError(problems);
  }
  const e = parsed.data;
  const s3Parts = [e.S3_ENDPOINT, e.S3_ACCESS_KEY, e.S3_SECRET_KEY];
  if (s3Parts.some((v) => v !== undefined) && s3Parts.some((v) => v === undefined)) {
    problems.push('S3_ENDPOINT, S3_ACCESS_KEY and S3_SECRET_KEY must be set together');
  }
  if (e.S3_ENDPOINT !== undefined && !/^https?:\/\/[^/]+/.test(e.S3_ENDPOINT)) {
    problems.push('S3_ENDPOINT: must be an http(s) URL such as http://minio:9000');
  }
  if (e.REDIS_URL !== undefined && !/^rediss?(\+sentinel|\+cluster)?:\/\/./.test(e.REDIS_URL)) {
    problems.push(
      'REDIS_URL: must start with redis://, rediss://, redis+sentinel:// or redis+cluster://',
    );
  }
  if (e.PORT !== 0 && e.PORT === e.ADMIN_PORT) {
    problems.push('PORT and ADMIN_PORT must differ');
  }
  const corsOrigins = e.RADAR_CORS_ORIGINS.split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
  if (corsOrigins.includes('*') && corsOrigins.length > 1) {
    problems.push('RADAR_CORS_ORIGINS: "*" cannot be combined with explicit origins');
  }
  const publicUrlIssue =
    e.RADAR_PUBLIC_URL === undefined ? undefined : publicUrlProblem(e.RADAR_PUBLIC_URL);
  if (publicUrlIssue !== undefined) problems.push(`RADAR_PUBLIC_URL: ${publicUrlIssue}`);
  const publicHosts = e.RADAR_PUBLIC_HOSTS.split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  for (const host of publicHosts) {
    if (publicHost(host) === undefined)
      problems.push(`RADAR_PUBLIC_HOSTS: "${host}" is not a host[:port] (port 1-65535)`);
  }
  if (!/^https?:\/\/[^/]+\/?$/.test(e.MRMS_S3_ENDPOINT)) {
    problems.push(
      'MRMS_S3_ENDPOINT: must be an http(s) URL without a path, such as https://s3.amazonaws.com',
    );
  }
  const productLevel = e.MRMS_PRODUCT ?? impliedProductLevel(e.MRMS_SOURCE);
  if (!PRODUCT_LEVEL.test(productLevel)) {
    problems.push(
      `MRMS_PRODUCT: "${productLevel}" is not an MRMS product and level such as ReflectivityAtLowestAltitude_00.50`,
    );
  }
  const typeProduct = e.MRMS_TYPE_PRODUCT ?? DEFAULT_TYPE_PRODUCT;
  if (typeProduct !== 'none' && !PRODUCT_LEVEL.test(typeProduct))
    problems.push(
      `MRMS_TYPE_PRODUCT: "${typeProduct}" is not an MRMS product and level such as PrecipFlag_00.00, nor none`,
    );
  const mrmsSource = parseMrmsSource(e.MRMS_SOURCE, {
    productLevel,
    endpoint: e.MRMS_S3_ENDPOINT.replace(/\/$/, ''),
    region: e.MRMS_S3_REGION,
    cwd,
  });
  if (!mrmsSource.ok) problems.push(`MRMS_SOURCE: ${mrmsSource.problem}`);
  if (problems.length > 0 || !mrmsSource.ok) throw new ConfigError(problems);

  const embedded = e.REDIS_URL === undefined && e.S3_ENDPOINT === undefined;
  const dataDir = path.resolve(cwd, e.RADAR_DATA_DIR);
  const redis =
    e.REDIS_URL === undefined
      ? undefined
      : { kind: 'redis' as const, url: e.REDIS_URL, timeoutMs: e.RADAR_REDIS_TIMEOUT_MS };
  const keysFile =
    e.RADAR_KEYS_FILE ?? (e.REDIS_URL === undefined ? path.join(cwd, 'keys.json') : undefined);
  const archives: ArchivesBackend =
    e.S3_ENDPOINT !== undefined && e.S3_ACCESS_KEY !== undefined && e.S3_SECRET_KEY !== undefined
      ? {
          kind: 's3',
          endpoint: e.S3_ENDPOINT,
          accessKey: e.S3_ACCESS_KEY,
          secretKey: e.S3_SECRET_KEY,
          bucket: e.S3_BUCKET,
          prefix: e.S3_PREFIX,
          region: e.S3_REGION,
          timeoutMs: e.RADAR_S3_TIMEOUT_MS,
        }
      : { kind: 'fs', dir: dataDir };
  return deepFreeze({
    embedded,
    http: {
      port: e.PORT,
      host: e.HOST,
      corsOrigins,
      cacheControl: e.RADAR_CACHE_CONTROL,
      trustProxy: e.RADAR_TRUST_PROXY,
      publicUrl: e.RADAR_PUBLIC_URL?.replace(/\/+$/, ''),
      publicHosts: publicHosts.map((h) => h.toLowerCase()),
      requestTimeoutS: e.RADAR_REQUEST_TIMEOUT_S,
      sendTimeoutS: e.RADAR_SEND_TIMEOUT_S,
      drainS: e.RADAR_DRAIN_S,
      drainIdleS: e.RADAR_DRAIN_IDLE_S,
    },
    admin: { port: e.ADMIN_PORT, host: e.ADMIN_HOST },
    archives,
    catalog: redis === undefined ? { kind: 'memory' } : { ...redis, resyncS: e.RADAR_RESYNC_S },
    keys:
      keysFile !== undefined
        ? { kind: 'file', path: path.resolve(cwd, keysFile) }
        : { ...redis!, resyncS: e.RADAR_RESYNC_S },
    limiter: redis ?? { kind: 'memory' },
    rate: { limit: e.RADAR_RATE_LIMIT, windowS: e.RADAR_RATE_WINDOW_S },
    publication: {
      retentionS: e.RADAR_RETENTION_S,
      staleAfterS: e.RADAR_STALE_AFTER_S,
      forecastGraceS: e.RADAR_FORECAST_GRACE_S,
    },
    reads: {
      cacheMb: e.RADAR_CACHE_MB,
      perKey: e.RADAR_STORE_READS_PER_KEY,
      perClient: e.RADAR_STORE_READS_PER_CLIENT,
    },
    usage: {
      enabled: e.RADAR_USAGE,
      flushS: e.RADAR_USAGE_FLUSH_S,
      retentionDays: e.RADAR_USAGE_RETENTION_DAYS,
      maxEntries: e.RADAR_USAGE_MAX_ENTRIES,
      store:
        redis ??
        ({
          kind: 'file',
          path: path.resolve(
            cwd,
            e.RADAR_USAGE_FILE ?? path.join(path.dirname(keysFile!), USAGE_FILE_NAME),
          ),
        } as const),
    },
    ingestPollS: e.RADAR_INGEST_POLL_S,
    dataDir,
    simulate: e.RADAR_SIMULATE ?? embedded,
    simulator: {
      backfill: e.RADAR_SIM_BACKFILL,
      cadenceS: e.RADAR_SIM_CADENCE_S,
      maxZoom: e.RADAR_SIM_MAX_ZOOM,
    },
    radarSource: e.RADAR_SOURCE,
    mrms: {
      source: mrmsSource.source,
      productLevel,
      backfill: e.MRMS_BACKFILL,
      pollS: e.MRMS_POLL_S ?? defaultPollS(mrmsSource.source),
      maxZoom: e.MRMS_MAX_ZOOM,
      workers: e.MRMS_WORKERS,
      timeoutS: e.MRMS_TIMEOUT_S,
      types:
        typeProduct === 'none'
          ? undefined
          : {
              productLevel: typeProduct,
              source: typeSource(mrmsSource.source, productLevel, typeProduct),
              waitS: e.MRMS_TYPE_WAIT_S,
            },
    },
    nowcast: { enabled: e.NOWCAST, leads: e.NOWCAST_LEADS },
    logLevel: e.LOG_LEVEL,
  } satisfies Config);
}

/** Why `value` cannot be the public base URL: an http(s) URL with a host and no query. */
function publicUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL such as https://radar.example.com';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL';
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
    return 'must not carry credentials, a query or a fragment';
  return undefined;
}
