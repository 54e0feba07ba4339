/**
 * A free loopback TCP port (bound, then released), for local servers started by tools and
 * tests. The kernel may hand the port just released to the next `listen(0)`, so two calls in
 * a row (a replica's PORT and ADMIN_PORT) could get the same one: ports handed out recently by
 * this process are never handed out again.
 */
import net from 'node:net';

const RECENT_LIMIT = 4096;
const recent = new Set<number>();

function bindAndRelease(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (;;) {
    const port = await bindAndRelease(host);
    if (recent.has(port)) continue;
    if (recent.size >= RECENT_LIMIT) recent.clear();
    recent.add(port);
    return port;
  }
}
