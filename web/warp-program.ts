/**
 * The motion-compensated interpolation (see motion-warp.ts) as a WebGL2 program: a fragment
 * shader that computes, per pixel of the picture, what `warpBlend` computes on the CPU, so a
 * new picture costs one draw call instead of a pass over every pixel in JavaScript. Frames A
 * and B are RGBA textures (nearest texels, fetched by integer index), the displacement is a
 * float texture with one texel per block. The output is premultiplied alpha, as MapLibre's
 * blending expects.
 */

const VERTEX = `#version 300 es
uniform mat4 u_matrix;
uniform vec4 u_bounds;
uniform vec2 u_size;
in vec2 a_corner;
out vec2 v_pixel;
void main() {
  v_pixel = a_corner * u_size;
  gl_Position = u_matrix * vec4(mix(u_bounds.xy, u_bounds.zw, a_corner), 0.0, 1.0);
}`;

// Mirrors warpBlend: A sampled back along the motion, B forward, rounded to the nearest texel
// (floor(x + 0.5) is Math.round), texels outside the image transparent, cross-faded.
const FRAGMENT = `#version 300 es
precision highp float;
precision highp int;
uniform highp sampler2D u_a;
uniform highp sampler2D u_b;
uniform highp sampler2D u_motion;
uniform float u_t;
uniform float u_block;
in vec2 v_pixel;
out vec4 colour;
vec4 texel(highp sampler2D image, vec2 at) {
  ivec2 i = ivec2(floor(at + 0.5));
  ivec2 size = textureSize(image, 0);
  if (i.x < 0 || i.y < 0 || i.x >= size.x || i.y >= size.y) return vec4(0.0);
  return texelFetch(image, i, 0);
}
void main() {
  vec2 p = floor(v_pixel);
  vec2 d = texelFetch(u_motion, ivec2(floor(p / u_block)), 0).rg;
  vec4 a = texel(u_a, p - u_t * d);
  vec4 b = texel(u_b, p + (1.0 - u_t) * d);
  float alphaA = a.a * (1.0 - u_t);
  float alphaB = b.a * u_t;
  colour = vec4(a.rgb * alphaA + b.rgb * alphaB, alphaA + alphaB);
}`;

/** What one draw needs: the textures, the image's size and block, where it lies, `t`. */
export interface WarpDraw {
  readonly a: WebGLTexture;
  readonly b: WebGLTexture;
  /** RG32F, one texel per block: the displacement A to B in image pixels. */
  readonly motion: WebGLTexture;
  readonly width: number;
  readonly height: number;
  readonly block: number;
  /** The image's corners in the matrix's coordinates: left, top, right, bottom. */
  readonly bounds: readonly [number, number, number, number];
  /** Maps `bounds` coordinates to clip space (column-major 4x4). */
  readonly matrix: Float32Array;
  readonly t: number;
}

/** A compiled warp program on one WebGL2 context. */
export interface WarpProgram {
  /** An RGBA8 texture of `data` (`width * height * 4`, not premultiplied). */
  imageTexture(data: Uint8ClampedArray, width: number, height: number): WebGLTexture;
  /** An RG32F texture of the displacement grid (`dx`, `dy` interleaved). */
  motionTexture(dx: Float32Array, dy: Float32Array, blocksX: number, blocksY: number): WebGLTexture;
  /** Draws the picture with the blending the caller set. */
  draw(d: WarpDraw): void;
  /** Whether the context still holds the program (false after a lost context). */
  valid(): boolean;
  delete(): void;
}

function compile(gl: WebGL2RenderingContext, type: number, source: string): WebGLShader {
  const shader = gl.createShader(type)!;
  gl.shaderSource(shader, source);
  gl.compileShader(shader);
  if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS) && !gl.isContextLost())
    throw new Error(`warp shader: ${gl.getShaderInfoLog(shader) ?? 'does not compile'}`);
  return shader;
}

function newTexture(gl: WebGL2RenderingContext): WebGLTexture {
  const texture = gl.createTexture()!;
  gl.activeTexture(gl.TEXTURE0);
  gl.bindTexture(gl.TEXTURE_2D, texture);
  for (const p of [gl.TEXTURE_MIN_FILTER, gl.TEXTURE_MAG_FILTER])
    gl.texParameteri(gl.TEXTURE_2D, p, gl.NEAREST);
  for (const p of [gl.TEXTURE_WRAP_S, gl.TEXTURE_WRAP_T])
    gl.texParameteri(gl.TEXTURE_2D, p, gl.CLAMP_TO_EDGE);
  gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
  gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
  gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
  return texture;
}

/**
 * Compiles the program on `gl`. It changes GL state (program, textures, buffers, unpack
 * flags) without restoring it: call it where the caller owns the state (a MapLibre custom
 * layer's `render`, after which MapLibre resets its own).
 */
export function createWarpProgram(gl: WebGL2RenderingContext): WarpProgram {
  const program = gl.createProgram()!;
  gl.attachShader(program, compile(gl, gl.VERTEX_SHADER, VERTEX));
  gl.attachShader(program, compile(gl, gl.FRAGMENT_SHADER, FRAGMENT));
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS) && !gl.isContextLost())
    throw new Error(`warp program: ${gl.getProgramInfoLog(program) ?? 'does not link'}`);
  const at = (name: string) => gl.getUniformLocation(program, name);
  const uniforms = {
    matrix: at('u_matrix'),
    bounds: at('u_bounds'),
    size: at('u_size'),
    a: at('u_a'),
    b: at('u_b'),
    motion: at('u_motion'),
    t: at('u_t'),
    block: at('u_block'),
  };
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  const corners = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, corners);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([0, 0, 1, 0, 0, 1, 1, 1]), gl.STATIC_DRAW);
  const corner = gl.getAttribLocation(program, 'a_corner');
  gl.enableVertexAttribArray(corner);
  gl.vertexAttribPointer(corner, 2, gl.FLOAT, false, 0, 0);
  gl.bindVertexArray(null);

  return {
    imageTexture(data, width, height) {
      const texture = newTexture(gl);
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, width, height, 0, gl.RGBA, gl.UNSIGNED_BYTE, bytes);
      return texture;
    },
    motionTexture(dx, dy, blocksX, blocksY) {
      const texture = newTexture(gl);
      const rg = new Float32Array(dx.length * 2);
      for (let k = 0; k < dx.length; k++) {
        rg[2 * k] = dx[k]!;
        rg[2 * k + 1] = dy[k]!;
      }
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RG32F, blocksX, blocksY, 0, gl.RG, gl.FLOAT, rg);
      return texture;
    },
    draw(d) {
      gl.useProgram(program);
      [d.a, d.b, d.motion].forEach((texture, unit) => {
        gl.activeTexture(gl.TEXTURE0 + unit);
        gl.bindTexture(gl.TEXTURE_2D, texture);
      });
      gl.uniform1i(uniforms.a, 0);
      gl.uniform1i(uniforms.b, 1);
      gl.uniform1i(uniforms.motion, 2);
      gl.uniformMatrix4fv(uniforms.matrix, false, d.matrix);
      gl.uniform4f(uniforms.bounds, ...d.bounds);
      gl.uniform2f(uniforms.size, d.width, d.height);
      gl.uniform1f(uniforms.t, d.t);
      gl.uniform1f(uniforms.block, d.block);
      gl.bindVertexArray(vao);
      gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
      gl.bindVertexArray(null);
    },
    valid: () => gl.isProgram(program) && !gl.isContextLost(),
    delete() {
      gl.deleteProgram(program);
      gl.deleteBuffer(corners);
      gl.deleteVertexArray(vao);
    },
  };
}
