/**
 * Handing a typed array to a worker thread without copying it there. `postMessage` moves whole
 * ArrayBuffers, so a view that spans its buffer is moved as it is, while a view into a larger
 * buffer (a `Buffer` cut from Node's shared pool slab, a slice of a bigger array) is first
 * copied into a buffer of its own: moving the larger one would take memory other views still
 * use. A view in shared memory is shared, not moved. The one rule for everything the render
 * pool sends (grids, MRMS files) and its workers send back (archives).
 */
import { types } from 'node:util';

/** A view ready to post, and the buffers to list in the `postMessage` transfer list. */
export interface MovableView<T> {
  readonly view: T;
  readonly transfer: ArrayBuffer[];
}

/**
 * `view` (or a copy of exactly its elements) and what to transfer with it. Once posted, the
 * caller's `view` is empty (detached) unless a copy was made or it lives in shared memory.
 */
export function movable<T extends Uint8Array | Float32Array>(view: T): MovableView<T> {
  const { buffer } = view;
  // `types` rather than instanceof: arrays made in another realm (vm, jest) count too.
  if (!types.isArrayBuffer(buffer)) return { view, transfer: [] };
  if (view.byteOffset === 0 && view.byteLength === buffer.byteLength)
    return { view, transfer: [buffer] };
  const copy = (types.isFloat32Array(view) ? new Float32Array(view) : new Uint8Array(view)) as T;
  return { view: copy, transfer: [copy.buffer as ArrayBuffer] };
}
