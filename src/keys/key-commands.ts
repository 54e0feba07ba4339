/**
 * Key administration as pure edits of the registry data: every command takes the current
 * registry and returns the new one (or throws a message for the operator). The CLI persists
 * the result in whichever store is configured.
 */
import {
  hashApiKey,
  type AppRecord,
  type KeyRecord,
  type KeyRegistryData,
} from '../domain/key-registry';

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

/** Adds a key bound to `apps`; the caller prints `apiKey` once and never stores it. */
export function createKey(
  data: KeyRegistryData,
  keyId: string,
  apps: readonly string[],
  apiKey: string,
  limit?: number,
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
  };
  return { ...data, keys: [...data.keys, key] };
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
    lines.push(
      `  ${key.id}  sha256:${key.sha256.slice(0, 12)}…  apps: ${key.apps.join(', ') || '-'}  ${limit}${key.disabled ? '  (disabled)' : ''}`,
    );
  }
  return lines.join('\n');
}
