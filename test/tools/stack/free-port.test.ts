import net from 'node:net';
import { freePort } from '../../../tools/stack/free-port';

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
