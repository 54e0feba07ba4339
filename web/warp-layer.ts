/**
 * The interpolated picture on the map: a MapLibre custom layer that draws the warp program
 * (warp-program.ts) over the frames' mosaic, in the map's own WebGL context, at the `t` its
 * owner gives for the moment the map renders. Frame images become textures once and are kept
 * for the next transition (its A is this one's B); all GL work happens in `render`, where
 * MapLibre lets a custom layer own the GL state. The picture is placed with the projection's
 * matrix for Web Mercator coordinates, so it assumes the Mercator projection the viewer uses
 * (a globe would need the projection's own vertex shader prelude).
 */
import type { CustomLayerInterface, Map as MapLibreMap } from 'maplibre-gl';
import type { WarpPair } from './motion-warp';
import { createWarpProgram, type WarpProgram } from './warp-program';

/** Frame textures kept: the shown transition's two and one more. */
const KEPT_TEXTURES = 3;

/**
 * One transition's picture: both frames' RGBA and the displacement grid (the same array of A
 * or B again means the same image, whose texture is reused), and where it lies.
 */
export interface WarpPicture extends WarpPair {
  /** Web Mercator corners, 0 to 1: left, top, right, bottom. */
  readonly bounds: readonly [number, number, number, number];
}

/** Options of {@link createWarpLayer}. */
export interface WarpLayerOptions {
  readonly id: string;
  readonly map: MapLibreMap;
  /** Told each picture drawn: the layer's own time in `render` (uploads included), ms. */
  readonly onPicture?: (ms: number) => void;
}

/** The layer and what its owner drives. */
export interface WarpLayer {
  readonly layer: CustomLayerInterface;
  /**
   * Shows `picture` at `t()` on every render until {@link hide}; `animating` keeps the map
   * rendering (a transition), otherwise it draws when the map renders anyway (a held picture).
   */
  show(picture: WarpPicture, t: () => number, animating: boolean): void;
  hide(): void;
  /** Drops the kept textures (the frames' colours changed). */
  forget(): void;
}

/** Creates the layer; add `layer` to the map where the picture belongs. */
export function createWarpLayer(options: WarpLayerOptions): WarpLayer {
  const { map } = options;
  let gl: WebGL2RenderingContext | undefined;
  let program: WarpProgram | undefined;
  const textures = new Map<Uint8ClampedArray, WebGLTexture>();
  let stale: WebGLTexture[] = [];
  let motion: { picture: WarpPicture; texture: WebGLTexture } | undefined;
  let shown: { picture: WarpPicture; t: () => number; animating: boolean } | undefined;

  const dropAll = () => {
    stale.push(...textures.values());
    textures.clear();
    if (motion) stale.push(motion.texture);
    motion = undefined;
  };

  const texture = (w: WarpProgram, data: Uint8ClampedArray, picture: WarpPicture) => {
    let kept = textures.get(data);
    if (kept === undefined) {
      kept = w.imageTexture(data, picture.width, picture.height);
      textures.set(data, kept);
    } else {
      textures.delete(data); // to the end: most recently used
      textures.set(data, kept);
    }
    return kept;
  };

  const render: CustomLayerInterface['render'] = (context, input) => {
    if (shown === undefined) return;
    const started = performance.now();
    if (program === undefined || gl !== context || !program.valid()) {
      gl = context;
      program = createWarpProgram(context);
      textures.clear(); // objects of a lost context or another one: nothing to delete
      motion = undefined;
      stale = [];
    }
    for (const old of stale) context.deleteTexture(old);
    stale = [];
    const { picture } = shown;
    const a = texture(program, picture.a, picture);
    const b = texture(program, picture.b, picture);
    while (textures.size > KEPT_TEXTURES) {
      const [data, oldest] = textures.entries().next().value!;
      context.deleteTexture(oldest);
      textures.delete(data);
    }
    if (motion?.picture !== picture) {
      if (motion) context.deleteTexture(motion.texture);
      const blocksX = Math.ceil(picture.width / picture.block);
      const blocksY = Math.ceil(picture.height / picture.block);
      motion = {
        picture,
        texture: program.motionTexture(picture.dx, picture.dy, blocksX, blocksY),
      };
    }
    program.draw({
      a,
      b,
      motion: motion.texture,
      width: picture.width,
      height: picture.height,
      block: picture.block,
      bounds: picture.bounds,
      matrix: new Float32Array(input.defaultProjectionData.mainMatrix),
      t: Math.max(0, Math.min(1, shown.t())),
    });
    options.onPicture?.(performance.now() - started);
    if (shown.animating) map.triggerRepaint();
  };

  return {
    layer: {
      id: options.id,
      type: 'custom',
      renderingMode: '2d',
      render,
      onRemove(_map, context) {
        dropAll();
        if (program?.valid()) {
          for (const old of stale) context.deleteTexture(old);
          program.delete();
        }
        stale = [];
        program = undefined;
      },
    },
    show(picture, t, animating) {
      shown = { picture, t, animating };
      map.triggerRepaint();
    },
    hide() {
      shown = undefined;
      map.triggerRepaint();
    },
    forget: dropAll,
  };
}
