/**
 * The key and app registry and the 401/403 decision over it, independent of where the
 * registry is stored (key file or Redis). Keys exist only as SHA-256 hashes.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ANY_ORIGIN, createOriginPolicy, type OriginPolicy } from './origin-policy';
import type { KeyRegistryData } from './key-records';
import type { AuthDecision } from './key-ports';
import { boundedMemo, type BoundedMemoSize } from '../shared/bounded-memo';

/** Hex SHA-256 of an API key: the only form in which a key is stored or compared. */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

export interface KeyRegistry {
  decide(apiKey: string, appId: string): AuthDecision;
  /** What the decision cache holds now (bounded whatever clients send; tests read it). */
  cacheSize(): BoundedMemoSize;
}

/** Indexes registry data for O(1) decisions; `defaultLimit` applies to keys without one. */
export function createKeyRegistry(data: KeyRegistryData, defaultLimit: number): KeyRegistry {
  const keysByHash = new Map(data.keys.map((k) => [k.sha256.toLowerCase(), k]));
  // Compiled once per registry load, so a request pays one set lookup at most.
  const policies = new Map<string, OriginPolicy>();
  for (const k of data.keys) {
    const policy = createOriginPolicy(k.origins, k.requireOrigin);
    if (policy !== ANY_ORIGIN) policies.set(k.id, policy);
  }
  const apps = new Map(data.apps.map((a) => [a.id, a]));
  /**
   * Decisions per (key, app), so a request pays one map lookup instead of a SHA-256 and a
   * constant-time compare. The cache belongs to this registry: every reload (a revocation
   * included) builds a new registry and so starts with an empty cache, which keeps revocation
   * as fast as the reload. Only decisions about a known key are kept (a client can invent any
   * number of unknown keys and apps, never a known key), and only for short credentials: what
   * a client sends never decides how much this cache holds.
   */
  const decided = boundedMemo<AuthDecision>({
    maxEntries: DECISION_CACHE_LIMIT,
    maxKeyLength: DECISION_CACHE_KEY_LENGTH,
    keep: (decision) => decision.outcome !== 'unauthenticated',
  });
  const decide = (apiKey: string, appId: string): AuthDecision =>
    decided.get(`${appId}\n${apiKey}`, () => decideUncached(apiKey, appId));
  return { decide, cacheSize: () => decided.size() };

  function decideUncached(apiKey: string, appId: string): AuthDecision {
    {
      const hash = hashApiKey(apiKey);
      const key = keysByHash.get(hash);
      // The map lookup finds the candidate; the constant-time compare is the actual check.
      if (
        !key ||
        !timingSafeEqual(Buffer.from(key.sha256.toLowerCase(), 'hex'), Buffer.from(hash, 'hex'))
      ) {
        return { outcome: 'unauthenticated', reason: 'unknown-key' };
      }
      const app = apps.get(appId);
      if (!app) return { outcome: 'unauthenticated', reason: 'unknown-app', keyId: key.id };
      if (key.disabled) return { outcome: 'forbidden', reason: 'key-disabled', keyId: key.id };
      if (app.disabled) return { outcome: 'forbidden', reason: 'app-disabled', keyId: key.id };
      if (!key.apps.includes(app.id))
        return { outcome: 'forbidden', reason: 'app-not-bound', keyId: key.id };
      const originPolicy = policies.get(key.id);
      return {
        outcome: 'allowed',
        keyId: key.id,
        appId: app.id,
        limit: key.limit ?? defaultLimit,
        // Only restricted keys carry a policy: unrestricted decisions stay as they always were.
        ...(originPolicy !== undefined ? { originPolicy } : {}),
      };
    }
  }
}

/** Distinct (key, app) pairs one registry remembers decisions for. */
const DECISION_CACHE_LIMIT = 10_000;
/**
 * Longest app id + key remembered (a generated key is 46 characters); longer credentials are
 * decided every time, so the cache holds at most 10,000 × 256 characters.
 */
const DECISION_CACHE_KEY_LENGTH = 256;
