/**
 * Embedded-mode onboarding: on a fresh machine there is no key file, so one is created with a
 * demo app and key, and the plain key is kept beside it (`demo-credentials.json`, mode 0600)
 * so every later start can print the same ready-to-paste credentials again.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { hashApiKey } from '../domain/key-registry';
import { writeKeyFile } from '../adapters/fs/key-file';
import { generateApiKey } from '../keys/key-file-format';

export interface DemoCredentials {
  readonly apiKey: string;
  readonly appId: string;
}

export const DEMO_APP_ID = 'demo-app';
export const DEMO_KEY_ID = 'demo';

/** Path of the demo credentials file kept beside a key file. */
export function demoCredentialsPath(keysFile: string): string {
  return path.join(path.dirname(keysFile), 'demo-credentials.json');
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

/**
 * Creates the key file with demo credentials when it does not exist yet; returns the demo
 * credentials kept beside it (new or from an earlier start), or undefined if there are none.
 */
export async function ensureDemoCredentials(
  keysFile: string,
): Promise<DemoCredentials | undefined> {
  const credentialsFile = demoCredentialsPath(keysFile);
  if (!(await exists(keysFile))) {
    const apiKey = generateApiKey();
    await writeKeyFile(keysFile, {
      apps: [{ id: DEMO_APP_ID, disabled: false }],
      keys: [{ id: DEMO_KEY_ID, sha256: hashApiKey(apiKey), apps: [DEMO_APP_ID], disabled: false }],
    });
    await fs.writeFile(
      credentialsFile,
      `${JSON.stringify({ apiKey, appId: DEMO_APP_ID }, null, 2)}\n`,
      {
        mode: 0o600,
      },
    );
  }
  try {
    const parsed = JSON.parse(
      await fs.readFile(credentialsFile, 'utf8'),
    ) as Partial<DemoCredentials>;
    if (typeof parsed.apiKey === 'string' && typeof parsed.appId === 'string') {
      return { apiKey: parsed.apiKey, appId: parsed.appId };
    }
  } catch {
    // No demo credentials (an operator-provided key file): nothing to print.
  }
  return undefined;
}

/** The start-up banner: URL, credentials and a curl line that works as pasted. */
export function demoBanner(
  baseUrl: string,
  credentials: DemoCredentials,
  title = `Radar tile service (embedded mode) on ${baseUrl}`,
): string {
  const headers = `-H 'Authorization: Bearer ${credentials.apiKey}' -H 'X-App: Bearer ${credentials.appId}'`;
  return [
    '',
    title,
    `  API key: ${credentials.apiKey}`,
    `  App id:  ${credentials.appId}`,
    `  Viewer:  ${baseUrl}/viewer/`,
    '  Try:',
    `  curl -s ${headers} ${baseUrl}/status.json`,
    `  curl -s -o /dev/null -D - -r 0-16383 ${headers} ${baseUrl}/tiles/$(curl -s ${headers} ${baseUrl}/status.json | sed -E 's/.*"latest":"([0-9]{12})".*/\\1/').pmtiles`,
    '',
  ].join('\n');
}
