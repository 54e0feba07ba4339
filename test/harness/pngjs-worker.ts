/**
 * pngjs's decode of a PNG, run in a worker thread. Inside jest's sandbox (a `vm` context)
 * pngjs's pure-JavaScript loops run about four times slower than in plain Node (measured on
 * the 7000 x 3500 16-bit PNG of the MRMS sample: 26.7 s against 7.1 s on a loaded machine); a
 * worker thread runs outside that sandbox, so the oracle costs what pngjs costs. The result is
 * the same `PNG.sync.read(png, { skipRescale: true })`, its pixel data moved back, not copied.
 */
import { Worker } from 'node:worker_threads';

/** What `PNG.sync.read` returns that the tests read. */
export interface PngjsImage {
  readonly width: number;
  readonly height: number;
  readonly depth: number;
  readonly colorType: number;
  /** RGBA, 8-bit (Uint8Array) or, for 16-bit images, Uint16Array. */
  readonly data: Uint8Array | Uint16Array;
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { PNG } = require(workerData.pngjs);
const image = PNG.sync.read(Buffer.from(workerData.png), { skipRescale: true });
const data = image.data;
const copy = data instanceof Uint16Array ? new Uint16Array(data) : new Uint8Array(data);
parentPort.postMessage(
  { width: image.width, height: image.height, depth: image.depth, colorType: image.colorType, data: copy },
  [copy.buffer],
);
`;

/** Decodes `png` with pngjs in a worker thread (rejects with pngjs's error). */
export function pngjsRead(png: Uint8Array): Promise<PngjsImage> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { png, pngjs: require.resolve('pngjs') },
    });
    worker.once('message', (image: PngjsImage) => {
      resolve(image);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`pngjs worker exited with ${code}`));
    });
  });
}
