import { PassThrough, type Readable } from 'node:stream';
import {
  createWindowStream,
  UpstreamTruncatedError,
} from '../../../../src/adapters/s3/window-stream';

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => i % 251));

describe('createWindowStream', () => {
  it('passes an exact body through and lets the upstream finish', async () => {
    const upstream = new PassThrough();
    const out = createWindowStream(upstream, { skip: 0, length: 10, bodyLength: 10 });
    upstream.write(bytes(4));
    upstream.end(bytes(10).subarray(4));
    expect(await collect(out)).toEqual(bytes(10));
    expect(upstream.readableEnded).toBe(true); // read to its end, not cut
  });

  it('skips and cuts across chunk boundaries, then destroys an upstream with more to send', async () => {
    const upstream = new PassThrough();
    const all = bytes(1000);
    const out = createWindowStream(upstream, { skip: 333, length: 400, bodyLength: 1000 });
    for (let i = 0; i < 800; i += 100) upstream.write(all.subarray(i, i + 100));
    expect(await collect(out)).toEqual(all.subarray(333, 733));
    expect(upstream.destroyed).toBe(true);
    expect(upstream.readableEnded).toBe(false);
  });

  it('fails when the upstream ends early, never padding the body', async () => {
    const upstream = new PassThrough();
    const out = createWindowStream(upstream, { skip: 0, length: 10, bodyLength: 10 });
    upstream.end(bytes(6));
    await expect(collect(out)).rejects.toBeInstanceOf(UpstreamTruncatedError);
  });

  it('fails when the upstream breaks mid-body', async () => {
    const upstream = new PassThrough();
    const out = createWindowStream(upstream, { skip: 0, length: 10, bodyLength: 10 });
    upstream.write(bytes(3));
    setImmediate(() => upstream.destroy(new Error('socket hang up')));
    await expect(collect(out)).rejects.toThrow(/after 3 of 10 bytes/);
  });

  it('destroys the upstream when the consumer goes away', () => {
    const upstream = new PassThrough();
    const out = createWindowStream(upstream, { skip: 0, length: 10, bodyLength: 10 });
    upstream.write(bytes(3));
    out.destroy();
    expect(upstream.destroyed).toBe(true);
  });

  it('applies backpressure to the upstream', async () => {
    const upstream = new PassThrough({ highWaterMark: 1024 });
    const out = createWindowStream(upstream, { skip: 0, length: 1 << 20, bodyLength: 1 << 20 });
    let accepted = 0;
    while (upstream.write(Buffer.alloc(16 * 1024))) accepted += 1;
    await new Promise((r) => setImmediate(r));
    expect(upstream.isPaused()).toBe(true);
    expect(accepted).toBeLessThan(64);
    out.destroy();
  });

  it('an empty window ends at once', async () => {
    const upstream = new PassThrough();
    const out = createWindowStream(upstream, { skip: 0, length: 0, bodyLength: 1 });
    expect(await collect(out)).toEqual(Buffer.alloc(0));
    expect(upstream.destroyed).toBe(true);
  });
});
