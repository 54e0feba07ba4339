/**
 * Which credentials the page starts with. The page remembers what the user entered (in
 * `localStorage`, this browser only). In embedded mode the server offers demo credentials:
 * they are used unless the user entered others, so the page is pre-filled on the first start
 * and on every later one, even after the demo key changed with a fresh data directory.
 */
import type { RadarCredentials } from '../src/client/transport';

const STORAGE_KEY = 'radar-viewer.credentials';

interface Stored extends RadarCredentials {
  /** `demo` when the user kept the server's demo credentials. */
  readonly source: 'user' | 'demo';
}

/** Start-up credentials and where they came from. */
export interface InitialCredentials {
  readonly credentials: RadarCredentials | undefined;
  readonly fromDemo: boolean;
}

/** Remembers credentials in a `Storage`. */
export interface CredentialsStore {
  initial(): InitialCredentials;
  save(credentials: RadarCredentials): void;
}

function read(storage: Storage): Stored | undefined {
  try {
    const value = JSON.parse(storage.getItem(STORAGE_KEY) ?? 'null') as Partial<Stored> | null;
    if (value && typeof value.apiKey === 'string' && typeof value.appId === 'string') {
      return {
        apiKey: value.apiKey,
        appId: value.appId,
        source: value.source === 'demo' ? 'demo' : 'user',
      };
    }
  } catch {
    // Unreadable entry: start as if none.
  }
  return undefined;
}

/** Creates the store; `demo` is the server's demo credentials, if any. */
export function createCredentialsStore(
  storage: Storage,
  demo: RadarCredentials | null,
): CredentialsStore {
  return {
    initial() {
      const stored = read(storage);
      if (stored?.source === 'user') return { credentials: stored, fromDemo: false };
      if (demo) return { credentials: demo, fromDemo: true };
      return { credentials: stored, fromDemo: false };
    },
    save(credentials) {
      const isDemo =
        demo !== null && credentials.apiKey === demo.apiKey && credentials.appId === demo.appId;
      const value: Stored = {
        apiKey: credentials.apiKey,
        appId: credentials.appId,
        source: isDemo ? 'demo' : 'user',
      };
      storage.setItem(STORAGE_KEY, JSON.stringify(value));
    },
  };
}
