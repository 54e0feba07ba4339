import { readFileSync } from 'node:fs';
import net from 'node:net';
import { freePort } from '../../../../tools/stack/free-port';

it('never hands out the same port twice in a row, and each one can be bound', async () => {
  const ports: number[] = [];
  for (let i = 0; i < 200; i++) ports.push(await freePort());
  expect(new Set(ports).size).toBe(ports.length);
  const server = net.createServer();
  await new Promise<void>((resolve) =>
    server.listen(ports[ports.length - 1], '127.0.0.1', resolve),
  );
  await new Promise((resolve) => server.close(resolve));
});

it('in a test worker, hands out ports of its own block below the ephemeral range (the kernel ones where that range leaves no room)', async () => {
  const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
  const worker = Number(process.env.JEST_WORKER_ID);
  // The blocks start at RADAR_TEST_PORT_BASE when a second checkout's run moved them.
  const base = Number(process.env['RADAR_TEST_PORT_BASE']) || 12_000;
  const first = base + (worker - 1) * 2_000;
  const port = await freePort();
  if (first + 2_000 <= Number(low)) {
    expect(port).toBeGreaterThanOrEqual(first);
    expect(port).toBeLessThan(first + 2_000);
  } else {
    expect(port).toBeGreaterThanOrEqual(Number(low));
  }
});
