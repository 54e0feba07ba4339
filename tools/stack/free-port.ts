/**
 * A free loopback TCP port (bound, then released), for local servers started by tools and
 * tests. Between the release and the child process binding it, somebody else may take the
 * port; two sources of that are closed here:
 *
 * - this process: the kernel may hand the port just released to the next `listen(0)`, so two
 *   calls in a row (a replica's PORT and ADMIN_PORT) could get the same one. Ports handed out
 *   recently by this process are never handed out again.
 * - parallel test workers (`JEST_WORKER_ID`): each takes ports from its own block below the
 *   kernel's ephemeral range, which no `listen(0)` and no outgoing connection ever uses, so
 *   another worker cannot be given the same port meanwhile.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';

const RECENT_LIMIT = 4096;
const recent = new Set<number>();

/**
 * Worker blocks: [BLOCK_BASE + (id-1)*BLOCK_SIZE, +BLOCK_SIZE), below the ephemeral range.
 * `RADAR_TEST_PORT_BASE` moves them, so two test runs on one machine (two checkouts) never
 * share a block.
 */
const BLOCK_BASE = Number(process.env['RADAR_TEST_PORT_BASE']) || 12_000;
const BLOCK_SIZE = 2_000;

/** The first port the kernel hands out on its own (Linux; 32768 by default), or 0 if unknown. */
function ephemeralStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/);
    return Number(low) || 0;
  } catch {
    return 0;
  }
}

function bind(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, host, () => {
      const bound = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}

function workerBlock(): { first: number; size: number } | undefined {
  const id = Number(process.env.JEST_WORKER_ID);
  if (!Number.isInteger(id) || id < 1) return undefined;
  const first = BLOCK_BASE + (id - 1) * BLOCK_SIZE;
  // Outside the ephemeral range or not at all: otherwise the block protects nothing.
  if (first + BLOCK_SIZE > ephemeralStart()) return undefined;
  return { first, size: BLOCK_SIZE };
}

let cursor = 0;

/** The next port of this worker's block that binds (ports in use are skipped). */
async function fromBlock(block: { first: number; size: number }, host: string): Promise<number> {
  for (let tried = 0; tried < block.size; tried++) {
    const port = block.first + (cursor++ % block.size);
    if ((await bind(port, host)) !== undefined) return port;
  }
  throw new Error(`no free port in ${block.first}-${block.first + block.size - 1}`);
}

const block = workerBlock();

export async function freePort(host = '127.0.0.1'): Promise<number> {
  if (block !== undefined) return fromBlock(block, host);
  for (;;) {
    const port = await bind(0, host);
    if (port === undefined) throw new Error(`cannot bind a port on ${host}`);
    if (recent.has(port)) continue;
    if (recent.size >= RECENT_LIMIT) recent.clear();
    recent.add(port);
    return port;
  }
}
