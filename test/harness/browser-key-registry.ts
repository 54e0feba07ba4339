/**
 * The key registry of the origin tests: the embedded API's registry plus a `browser` key of
 * the web app, as a site's map page would use it, with the origin policy a test sets.
 */
import { hashApiKey } from '../../src/domain/key-registry';
import type { KeyRegistryData } from '../../src/domain/key-records';
import { APPS, registryData } from './embedded-api';

/** The `browser` key's secret. */
export const BROWSER_KEY = 'rk_browser-key-0123456789';

export interface BrowserKeyPolicy {
  /** Allowed origins; absent means every origin. */
  readonly origins?: string[];
  /** Refuse requests that name no origin. */
  readonly requireOrigin?: boolean;
  /** Requests per window; absent means the default limit. */
  readonly limit?: number;
}

/** `registryData()` with the `browser` key added under `policy`. */
export function registryWithBrowserKey(policy: BrowserKeyPolicy = {}): KeyRegistryData {
  const { origins, requireOrigin, limit } = policy;
  const base = registryData();
  return {
    ...base,
    keys: [
      ...base.keys,
      {
        id: 'browser',
        sha256: hashApiKey(BROWSER_KEY),
        apps: [APPS.web],
        ...(limit !== undefined ? { limit } : {}),
        disabled: false,
        ...(origins ? { origins } : {}),
        ...(requireOrigin ? { requireOrigin } : {}),
      },
    ],
  };
}
