/**
 * Jest global setup: decides once, before any test file is collected, which backend the
 * harness uses (containers or local binaries, see container-runtime.ts) and records it in
 * `RADAR_TEST_BACKEND`, so a test that only means something on one backend (MinIO bucket
 * notifications) can use jest's own skip, reported as skipped, rather than pass vacuously.
 */
import { chooseBackend } from './container-runtime';

export default async function globalSetup(): Promise<void> {
  const choice = await chooseBackend();
  process.env['RADAR_TEST_BACKEND'] = choice.backend;
  process.env['RADAR_TEST_BACKEND_REASON'] = choice.reason;
}
