/**
 * Key administration as pure edits of the registry data: every command takes the current
 * registry and returns the new one (or throws a message for the operator). The CLI persists
 * the result in whichever store is configured.
 */
import { hashApiKey } from '../domain/key-registry';
import { type AppRecord, type KeyRecord, type KeyRegistryData } from '../domain/key-records';
import { originPatternProblem } from '../domain/origin-policy';

export class KeyCommandError extends Error {}

const ID = /^[A-Za-z0-9._~+/-]+$/;

function requireId(kind: string, id: string | undefined): string {
  if (!id || !ID.test(id))
    throw new KeyCommandError(`${kind} id must use letters, digits and . _ ~ + / -`);
  return id;
}

function findKey(data: KeyRegistryData, id: string): KeyRecord {
  const key = data.keys.find((k) => k.id === id);
  if (!key) throw new KeyCommandError(`no key with id ${id}`);
  return key;
}

function findApp(data: KeyRegistryData, id: string): AppRecord {
  const app = data.apps.find((a) => a.id === id);
  if (!app) throw new KeyCommandError(`no app with id ${id}`);
  return app;
}

export function createApp(data: KeyRegistryData, appId: string): KeyRegistryData {
  requireId('app', appId);
  if (data.apps.some((a) => a.id === appId))
    throw new KeyCommandError(`app ${appId} exists already`);
  return { ...data, apps: [...data.apps, { id: appId, disabled: false }] };
}

/** Browser-key restrictions of a key (docs/keys.md "Allowed origins"). */
export interface OriginOptions {
  readonly origins?: readonly string[];
  readonly requireOrigin?: boolean;
}

function checkOrigins(origins: readonly string[]): string[] {
  for (const origin of origins) {
    const problem = originPatternProblem(origin);
    if (problem !== undefined) throw new KeyCommandError(`--origin ${problem}`);
  }
  return [...new Set(origins)];
}

/** The key's origin fields as stored: omitted when unrestricted, so old files stay as they were. */
function originFields(origins: readonly string[], requireOrigin: boolean): Partial<KeyRecord> {
  return {
    ...(origins.length > 0 ? { origins: [...origins] } : {}),
    ...(requireOrigin ? { requireOrigin: true } : {}),
  };
}

function withoutOriginFields(key: KeyRecord): KeyRecord {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { origins, requireOrigin, ...rest } = key;
  return rest;
}

/** Adds a key bound to `apps`; the caller prints `apiKey` once and never stores it. */
export function createKey(
  data: KeyRegistryData,
  keyId: string,
  apps: readonly string[],
  apiKey: string,
  limit?: number,
  access: OriginOptions = {},
): KeyRegistryData {
  requireId('key', keyId);
  if (data.keys.some((k) => k.id === keyId))
    throw new KeyCommandError(`key ${keyId} exists already`);
  if (apps.length === 0) throw new KeyCommandError('a key needs at least one --app');
  for (const app of apps) findApp(data, app);
  if (limit !== undefined && (!Number.isInteger(limit) || limit <= 0)) {
    throw new KeyCommandError('--limit must be a positive integer');
  }
  const key: KeyRecord = {
    id: keyId,
    sha256: hashApiKey(apiKey),
    apps: [...apps],
    ...(limit !== undefined ? { limit } : {}),
    disabled: false,
    ...originFields(checkOrigins(access.origins ?? []), access.requireOrigin ?? false),
  };
  return { ...data, keys: [...data.keys, key] };
}

/** Replaces a key's allowed origins (an empty list allows any origin). */
export function setKeyOrigins(
  data: KeyRegistryData,
  keyId: string,
  origins: readonly string[],
): KeyRegistryData {
  const checked = checkOrigins(origins);
  findKey(data, keyId);
  return {
    ...data,
    keys: data.keys.map((k) =>
      k.id === keyId
        ? { ...withoutOriginFields(k), ...originFields(checked, k.requireOrigin ?? false) }
        : k,
    ),
  };
}

/** Whether a key refuses requests that name no origin (server-side use of a browser key). */
export function setKeyRequireOrigin(
  data: KeyRegistryData,
  keyId: string,
  requireOrigin: boolean,
): KeyRegistryData {
  findKey(data, keyId);
  return {
    ...data,
    keys: data.keys.map((k) =>
      k.id === keyId
        ? { ...withoutOriginFields(k), ...originFields(k.origins ?? [], requireOrigin) }
        : k,
    ),
  };
}

export function setKeyDisabled(
  data: KeyRegistryData,
  keyId: string,
  disabled: boolean,
): KeyRegistryData {
  findKey(data, keyId);
  return { ...data, keys: data.keys.map((k) => (k.id === keyId ? { ...k, disabled } : k)) };
}

export function setAppDisabled(
  data: KeyRegistryData,
  appId: string,
  disabled: boolean,
): KeyRegistryData {
  findApp(data, appId);
  return { ...data, apps: data.apps.map((a) => (a.id === appId ? { ...a, disabled } : a)) };
}

export function removeKey(data: KeyRegistryData, keyId: string): KeyRegistryData {
  findKey(data, keyId);
  return { ...data, keys: data.keys.filter((k) => k.id !== keyId) };
}

/** Removes an app and unbinds it from every key. */
export function removeApp(data: KeyRegistryData, appId: string): KeyRegistryData {
  findApp(data, appId);
  return {
    apps: data.apps.filter((a) => a.id !== appId),
    keys: data.keys.map((k) => ({ ...k, apps: k.apps.filter((a) => a !== appId) })),
  };
}

/** Human-readable listing; hashes are shortened, keys themselves are never known. */
export function describe(data: KeyRegistryData): string {
  const lines = ['apps:'];
  for (const app of data.apps) lines.push(`  ${app.id}${app.disabled ? ' (disabled)' : ''}`);
  lines.push('keys:');
  for (const key of data.keys) {
    const limit = key.limit === undefined ? 'default limit' : `limit ${key.limit}`;
    const origins = key.origins?.length ? `  origins: ${key.origins.join(', ')}` : '';
    lines.push(
      `  ${key.id}  sha256:${key.sha256.slice(0, 12)}…  apps: ${key.apps.join(', ') || '-'}  ${limit}${origins}${key.requireOrigin ? '  (origin required)' : ''}${key.disabled ? '  (disabled)' : ''}`,
    );
  }
  return lines.join('\n');
}
