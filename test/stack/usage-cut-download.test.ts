/**
 * The bytes a cut download counts in usage, over a real socket through the replica's answer
 * writer: a client takes 64 KiB of an 11 MB archive, stops reading until every buffer on the
 * way is full and nothing moves, then leaves. The count is what the server's socket accepted:
 * what the client process received, plus what the kernel held between the two sockets (the
 * client's Recv-Q and the server's Send-Q, read with `ss`), plus at most what Node held in the
 * replica (docs/usage.md: the socket's high-water mark and one chunk of the body stream). Far
 * below the Content-Length the response promised.
 */
import net from 'node:net';
import type { UsageReport } from '../../src/domain/usage-report';
import { bigArchive } from '../fixtures/archives';
import { auth, startEmbeddedApi, type EmbeddedApi } from '../harness/embedded-api';
import { request } from '../harness/http-client';
import { connectionQueues, type ConnectionQueues } from '../harness/socket-queues';
import { reportFigure, waitFor } from '../harness/wait';

jest.setTimeout(60_000);

const BIG = '202611221402';
/** Node's part in the replica: a 16 KiB socket high-water mark and a 64 KiB file chunk. */
const NODE_BUFFERS = 128 * 1024;
let api: EmbeddedApi;

beforeAll(async () => {
  api = await startEmbeddedApi({ usageFlushMs: 100, env: { RADAR_CACHE_MB: '0' } });
  await api.publish(BIG, bigArchive(BIG));
  await api.waitForListed(BIG);
});
afterAll(() => api?.stop());

/** A raw GET of the archive that stops reading once `after` body bytes arrived. */
function stalledDownload(after: number) {
  const socket = net.connect(api.replica.port, '127.0.0.1');
  const head = [
    `GET /tiles/${BIG}.pmtiles HTTP/1.1`,
    `Host: 127.0.0.1:${api.replica.port}`,
    ...Object.entries(auth()).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  let data = Buffer.alloc(0);
  let headLength = -1;
  const stopped = new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (headLength < 0 && data.includes('\r\n\r\n')) headLength = data.indexOf('\r\n\r\n') + 4;
      if (headLength >= 0 && data.length - headLength >= after) {
        socket.pause();
        resolve();
      }
    });
    socket.once('end', () => reject(new Error('the whole archive arrived')));
  });
  socket.write(head);
  return {
    socket,
    stopped,
    /** Body bytes the client process holds: handed to it, or read and buffered while paused. */
    received: () => data.length - headLength + socket.readableLength,
    head: () => data.subarray(0, headLength).toString('latin1'),
  };
}

it('a download cut after 64 KiB counts what the socket accepted, not its Content-Length', async () => {
  const download = stalledDownload(64 * 1024);
  await download.stopped;
  const contentLength = Number(/\r\ncontent-length: (\d+)/i.exec(download.head())![1]);
  expect(contentLength).toBeGreaterThan(10_000_000);

  // Every buffer on the way fills; wait until five readings 50 ms apart agree.
  const clientPort = download.socket.localPort!;
  let last = '';
  let same = 0;
  let queues: ConnectionQueues | undefined;
  await waitFor(
    async () => {
      queues = await connectionQueues(clientPort, api.replica.port);
      const now = `${queues.clientRecvQ} ${queues.serverSendQ} ${download.received()}`;
      same = now === last ? same + 1 : 0;
      last = now;
      return same >= 4;
    },
    20_000,
    'the stalled connection stops moving',
    50,
  );
  const received = download.received();
  const kernel = queues!.clientRecvQ + queues!.serverSendQ;
  download.socket.destroy();

  const admin = `http://127.0.0.1:${api.replica.adminPort}`;
  let report: UsageReport | undefined;
  await waitFor(
    async () => {
      report = (await request(admin, '/usage?since=2h')).json<UsageReport>();
      return report.totals.requests === 1;
    },
    20_000,
    'the cut download counted',
    50,
  );
  const good = report!.keys.find((k) => k.key === 'good')!;
  expect(good.statuses).toEqual({ '499': 1 });
  const counted = good.bytes;
  reportFigure('cut download: body bytes the client process received', received, 'B');
  reportFigure('cut download: bytes in the kernel queues (Recv-Q + Send-Q)', kernel, 'B');
  reportFigure('cut download: bytes counted in usage', counted, 'B');
  reportFigure('cut download: Content-Length', contentLength, 'B');
  expect(counted).toBeGreaterThanOrEqual(received + kernel);
  expect(counted).toBeLessThanOrEqual(received + kernel + NODE_BUFFERS);
  expect(counted).toBeLessThan(contentLength / 2);
});
