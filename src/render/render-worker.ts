/**
 * Worker-thread entry of the render pool: renders whole frames on request and transfers the
 * archive bytes back without copying. Runs only inside a worker started by `render-pool.ts`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createFrameRenderer, type FrameOptions } from './render-frame';

/** Pool -> worker: render the frame of `timestamp`. */
export interface RenderRequest {
  readonly id: number;
  readonly timestamp: string;
}

/** Worker -> pool: the archive (its ArrayBuffer is transferred), or why rendering failed. */
export type RenderReply =
  | { readonly id: number; readonly ok: true; readonly bytes: ArrayBuffer }
  | { readonly id: number; readonly ok: false; readonly message: string };

/** `workerData` of a render worker. */
export interface RenderWorkerData {
  /** Marks a render worker, so importing this module anywhere else does nothing. */
  readonly kind: 'radar-render';
  readonly frame: FrameOptions;
}

/** A transferable ArrayBuffer holding exactly `bytes` (copied only if it shares a pool slab). */
export function detachable(bytes: Buffer): ArrayBuffer {
  if (
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength &&
    bytes.buffer instanceof ArrayBuffer
  ) {
    return bytes.buffer;
  }
  const copy = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(copy).set(bytes);
  return copy;
}

const port = parentPort;
const data = workerData as RenderWorkerData | undefined;
if (port && data?.kind === 'radar-render') {
  const renderer = createFrameRenderer(data.frame);
  port.on('message', (request: RenderRequest) => {
    let reply: RenderReply;
    try {
      const bytes = detachable(renderer.render(request.timestamp));
      reply = { id: request.id, ok: true, bytes };
      port.postMessage(reply, [bytes]);
    } catch (error) {
      reply = {
        id: request.id,
        ok: false,
        message: error instanceof Error ? error.message : String(error),
      };
      port.postMessage(reply);
    }
  });
}
