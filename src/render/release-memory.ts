/**
 * Giving a worker thread's dead grids back to the system at once. A CONUS grid is a 98 MB typed
 * array whose memory lives outside the JavaScript heap and is freed only when the thread's
 * garbage collector runs; a worker's heap is a few megabytes, so nothing makes it collect after
 * a job, and an idle worker kept its last job's grids (about 240 MB for a typed MRMS frame)
 * resident beside the next job's in another thread. A full collection of such a small heap takes
 * milliseconds; the workers run one after each job (render) and after each frame and cycle
 * (nowcast), so a producer's peak holds the grids in use only.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * Runs a full garbage collection of the calling thread's heap. V8 exposes its collector as
 * `gc` only with `--expose-gc`; setting the flag at run time and reading `gc` in a new context
 * gives the function without a command-line flag (the flag changes nothing else).
 */
export function releaseMemory(): void {
  if (collect === undefined) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}
