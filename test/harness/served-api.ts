/**
 * The built API as a real process in embedded mode, serving a directory the test prepared
 * (`data/` with its archives, `keys.json` with the harness registry): what tests use that need
 * the process itself (its time zone, its heap, its fatal-error handling) rather than the core
 * in-process.
 */
import { auth } from './embedded-api';
import { request } from './http-client';
import { API_ENTRY, freePort, spawnNode, type SpawnedProcess } from './spawned-api';

/** A served API process and its two base URLs. */
export interface ServedApi {
  readonly proc: SpawnedProcess;
  readonly base: string;
  readonly admin: string;
}

/**
 * Starts `dist/bin/api.js` in `root` on free loopback ports, without the simulator, keeping
 * archives of any age, with `env` on top; resolves once it is ready and answers `timestamp`'s
 * archive to the harness key. Throws with the process's output if it exits first or 30 s pass.
 */
export async function spawnServedApi(
  root: string,
  timestamp: string,
  env: Record<string, string> = {},
): Promise<ServedApi> {
  const [port, adminPort] = [await freePort(), await freePort()];
  const proc = spawnNode(API_ENTRY, {
    cwd: root,
    env: {
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      HOST: '127.0.0.1',
      ADMIN_HOST: '127.0.0.1',
      RADAR_SIMULATE: '0',
      RADAR_RETENTION_S: String(10 * 365 * 86400),
      LOG_LEVEL: 'warn',
      ...env,
    },
  });
  const served = {
    proc,
    base: `http://127.0.0.1:${port}`,
    admin: `http://127.0.0.1:${adminPort}`,
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await request(served.admin, '/readyz').catch(() => undefined);
    const listed = await request(served.base, `/tiles/${timestamp}.pmtiles`, {
      method: 'HEAD',
      headers: auth(),
    }).catch(() => undefined);
    if (ready?.status === 200 && listed?.status === 200) return served;
    if (proc.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`server not ready:\n${proc.stderr()}\n${proc.stdout()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
