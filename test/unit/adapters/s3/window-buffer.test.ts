import { PassThrough } from 'node:stream';
import { readWindow } from '../../../../src/adapters/s3/window-buffer';
import { UpstreamTruncatedError } from '../../../../src/adapters/s3/window-stream';
import { ClientGoneError } from '../../../../src/domain/archive-errors';

const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => i % 251));
const never = new AbortController().signal;
const nothing = () => {};

describe('readWindow', () => {
  it('reads an exact body to its end, so the connection can be reused', async () => {
    const upstream = new PassThrough();
    const read = readWindow(upstream, { skip: 0, length: 10, bodyLength: 10 }, never, nothing);
    upstream.write(bytes(4));
    upstream.end(bytes(10).subarray(4));
    expect(await read).toEqual(bytes(10));
    expect(upstream.readableEnded).toBe(true);
  });

  it('skips and cuts across chunk boundaries, then destroys an upstream with more to send', async () => {
    const upstream = new PassThrough();
    const all = bytes(1000);
    let chunks = 0;
    const read = readWindow(
      upstream,
      { skip: 333, length: 400, bodyLength: 1000 },
      never,
      () => chunks++,
    );
    for (let i = 0; i < 800; i += 100) upstream.write(all.subarray(i, i + 100));
    expect(await read).toEqual(all.subarray(333, 733));
    expect(chunks).toBeGreaterThanOrEqual(8);
    expect(upstream.destroyed).toBe(true);
    expect(upstream.readableEnded).toBe(false);
  });

  it('fails when the upstream ends early, never padding the bytes', async () => {
    const upstream = new PassThrough();
    const read = readWindow(upstream, { skip: 0, length: 10, bodyLength: 10 }, never, nothing);
    upstream.end(bytes(6));
    await expect(read).rejects.toBeInstanceOf(UpstreamTruncatedError);
  });

  it('fails when the upstream breaks mid-body', async () => {
    const upstream = new PassThrough();
    const read = readWindow(upstream, { skip: 0, length: 10, bodyLength: 10 }, never, nothing);
    upstream.write(bytes(3));
    setImmediate(() => upstream.destroy(new Error('socket hang up')));
    await expect(read).rejects.toThrow(/after 3 of 10 bytes/);
  });

  it('a client that leaves destroys the upstream and rejects as gone', async () => {
    const upstream = new PassThrough();
    const abort = new AbortController();
    const read = readWindow(
      upstream,
      { skip: 0, length: 10, bodyLength: 10 },
      abort.signal,
      nothing,
    );
    upstream.write(bytes(3));
    abort.abort();
    await expect(read).rejects.toBeInstanceOf(ClientGoneError);
    expect(upstream.destroyed).toBe(true);
  });
});
