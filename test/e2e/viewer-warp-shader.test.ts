/**
 * The viewer's warp shader (web/warp-program.ts) draws, in Debian's Chromium on software
 * WebGL, the same picture as its definition in JavaScript (`warpBlend`, web/motion-warp.ts):
 * two palette-like frames, a displacement grid with fractional, differing blocks, several
 * `t`. The shader's output is premultiplied; the definition's is not, so the test compares
 * alpha and premultiplied colour, each within one step of 255 (8-bit rounding).
 */
import { build } from 'esbuild';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { warpBlend, type WarpPair } from '../../web/motion-warp';
import { launchChromium, type Chromium } from '../harness/browser';

jest.setTimeout(60_000);

const WIDTH = 96;
const HEIGHT = 64;
const BLOCK = 8;

let browser: Chromium;
let page: Page;

/** The warp program bundled for the page, as `window.warp.createWarpProgram`. */
async function bundle(): Promise<string> {
  const result = await build({
    stdin: {
      contents: `export { createWarpProgram } from './web/warp-program';`,
      resolveDir: path.resolve(__dirname, '../..'),
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    globalName: 'warp',
    write: false,
  });
  return result.outputFiles[0]!.text;
}

beforeAll(async () => {
  browser = await launchChromium();
  page = await browser.context.newPage();
  await page.setContent(`<canvas id="c" width="${WIDTH}" height="${HEIGHT}"></canvas>`);
  await page.addScriptTag({ content: await bundle() });
});

afterAll(async () => {
  await browser?.close();
});

/** A frame of `colours` in stripes and blobs, transparent elsewhere (as a radar tile is). */
function frame(seed: number): Uint8ClampedArray {
  const colours = [
    [4, 233, 231],
    [1, 159, 244],
    [2, 253, 2],
    [253, 248, 2],
    [253, 0, 0],
  ];
  const data = new Uint8ClampedArray(WIDTH * HEIGHT * 4);
  for (let y = 0; y < HEIGHT; y++)
    for (let x = 0; x < WIDTH; x++) {
      const v =
        Math.sin((x + seed) * 0.21) + Math.cos((y - seed) * 0.17) + ((x * y + seed) % 7) / 7;
      if (v < 0.4) continue;
      const [r, g, b] = colours[Math.floor(v * 3) % colours.length]!;
      data.set([r!, g!, b!, 255], (y * WIDTH + x) * 4);
    }
  return data;
}

/** The shader's picture at `t`, read back as RGBA rows from the top (premultiplied). */
function shaderPicture(pair: WarpPair, t: number): Promise<number[]> {
  return page.evaluate(
    ({ a, b, dx, dy, width, height, block, t }) => {
      const canvas = document.getElementById('c') as HTMLCanvasElement;
      const gl = canvas.getContext('webgl2', { premultipliedAlpha: true })!;
      const program = (
        window as unknown as {
          warp: { createWarpProgram: typeof import('../../web/warp-program').createWarpProgram };
        }
      ).warp.createWarpProgram(gl);
      const blocksX = Math.ceil(width / block);
      const blocksY = Math.ceil(height / block);
      gl.viewport(0, 0, width, height);
      gl.disable(gl.BLEND);
      gl.clearColor(0, 0, 0, 0);
      gl.clear(gl.COLOR_BUFFER_BIT);
      program.draw({
        a: program.imageTexture(new Uint8ClampedArray(a), width, height),
        b: program.imageTexture(new Uint8ClampedArray(b), width, height),
        motion: program.motionTexture(new Float32Array(dx), new Float32Array(dy), blocksX, blocksY),
        width,
        height,
        block,
        bounds: [0, 0, 1, 1],
        // x 0..1 to clip -1..1, y 0..1 (top to bottom) to clip 1..-1.
        matrix: new Float32Array([2, 0, 0, 0, 0, -2, 0, 0, 0, 0, 1, 0, -1, 1, 0, 1]),
        t,
      });
      const pixels = new Uint8Array(width * height * 4);
      gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
      // readPixels' rows run bottom up.
      const rows: number[] = [];
      for (let y = height - 1; y >= 0; y--)
        rows.push(...pixels.subarray(y * width * 4, (y + 1) * width * 4));
      return rows;
    },
    {
      a: [...pair.a],
      b: [...pair.b],
      dx: [...pair.dx],
      dy: [...pair.dy],
      width: pair.width,
      height: pair.height,
      block: pair.block,
      t,
    },
  );
}

it.each([0, 0.25, 0.5, 0.8, 1])('the shader draws what warpBlend defines at t = %d', async (t) => {
  const blocks = Math.ceil(WIDTH / BLOCK) * Math.ceil(HEIGHT / BLOCK);
  const dx = new Float32Array(blocks);
  const dy = new Float32Array(blocks);
  // Eastward and southward motion that differs per block, with fractions (11.3, -4.7 ...).
  for (let k = 0; k < blocks; k++) {
    dx[k] = 11.3 + (k % 5) * 1.37;
    dy[k] = -4.7 + (k % 3) * 2.11;
  }
  const pair: WarpPair = {
    width: WIDTH,
    height: HEIGHT,
    a: frame(0),
    b: frame(13),
    block: BLOCK,
    dx,
    dy,
  };
  const expected = new Uint8ClampedArray(WIDTH * HEIGHT * 4);
  warpBlend(pair, t, expected);
  const drawn = await shaderPicture(pair, t);
  let differing = 0;
  let opaque = 0;
  for (let i = 0; i < expected.length; i += 4) {
    const alpha = expected[i + 3]!;
    if (alpha === 255) opaque++;
    const off = [0, 1, 2].some(
      (c) => Math.abs(drawn[i + c]! - Math.round((expected[i + c]! * alpha) / 255)) > 1,
    );
    if (off || Math.abs(drawn[i + 3]! - alpha) > 1) differing++;
  }
  // The picture is not empty, and every pixel matches.
  expect(opaque).toBeGreaterThan(WIDTH * HEIGHT * 0.1);
  expect(differing).toBe(0);
});
