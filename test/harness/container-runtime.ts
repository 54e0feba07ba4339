/**
 * Decides whether the test harness can start real servers in containers (testcontainers) or
 * must run local binaries instead, without ever hanging: a machine with a Docker client but
 * no engine (these CI machines) is recognised from the absence of any engine socket in
 * microseconds, and a socket that does not answer is given `timeoutMs`.
 *
 * `RADAR_TEST_BACKEND=local` forces local binaries; `=container` requires a runtime.
 * testcontainers is pinned to v11 (v12's undici needs Node 22) and loaded lazily; a failure to
 * load it also means "local".
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { settleWithin } from './wait';

export type TestBackend = 'container' | 'local';

/** The decision and why, for the one line the harness logs. */
export interface BackendChoice {
  readonly backend: TestBackend;
  readonly reason: string;
}

type Testcontainers = typeof import('testcontainers');

let choice: Promise<BackendChoice> | undefined;
let testcontainers: Testcontainers | undefined;

function engineSocketCandidates(): string[] {
  const uid = os.userInfo().uid;
  const runtimeDir = process.env['XDG_RUNTIME_DIR'];
  return [
    '/var/run/docker.sock',
    '/run/podman/podman.sock',
    path.join(os.homedir(), '.docker', 'run', 'docker.sock'),
    path.join(os.homedir(), '.docker', 'desktop', 'docker.sock'),
    path.join('/run', 'user', String(uid), 'docker.sock'),
    path.join('/run', 'user', String(uid), 'podman', 'podman.sock'),
    ...(runtimeDir
      ? [path.join(runtimeDir, 'docker.sock'), path.join(runtimeDir, 'podman', 'podman.sock')]
      : []),
  ];
}

/** Where an engine could be reached, or undefined when there is certainly none. */
function engineHint(): string | undefined {
  const fromEnv = process.env['DOCKER_HOST'];
  if (fromEnv) return fromEnv;
  if (fs.existsSync(path.join(os.homedir(), '.testcontainers.properties')))
    return '~/.testcontainers.properties';
  return engineSocketCandidates().find((p) => fs.existsSync(p));
}

async function probe(timeoutMs: number): Promise<BackendChoice> {
  const forced = process.env['RADAR_TEST_BACKEND'];
  if (forced === 'local') return { backend: 'local', reason: 'RADAR_TEST_BACKEND=local' };
  const hint = engineHint();
  if (hint === undefined) {
    if (forced === 'container')
      throw new Error('RADAR_TEST_BACKEND=container but no container engine socket found');
    return { backend: 'local', reason: 'no container engine socket' };
  }
  let reason: string;
  try {
    const mod = await import('testcontainers');
    await settleWithin(mod.getContainerRuntimeClient(), timeoutMs, () => {
      throw new Error(`no answer within ${timeoutMs} ms`);
    });
    testcontainers = mod;
    return { backend: 'container', reason: `container runtime at ${hint}` };
  } catch (err) {
    reason = `container runtime at ${hint} unusable: ${(err as Error).message.split('\n')[0]}`;
  }
  if (forced === 'container') throw new Error(`RADAR_TEST_BACKEND=container but ${reason}`);
  return { backend: 'local', reason };
}

/** The backend for this test process, decided once (later calls share the answer). */
export function chooseBackend(timeoutMs = 3000): Promise<BackendChoice> {
  choice ??= probe(timeoutMs);
  return choice;
}

/** The testcontainers module; only after `chooseBackend()` answered `container`. */
export function loadedTestcontainers(): Testcontainers {
  if (!testcontainers)
    throw new Error('testcontainers is not available; call chooseBackend() first');
  return testcontainers;
}
