/**
 * The map-client load every fault scenario runs while it injects its fault: four clients with
 * the unlimited load key, through the fault stack's nginx, so that failures are counted where
 * map clients would see them.
 */
import { faultAuth, type FaultStack } from './fault-stack';
import { startMapClientLoad, type MapClientLoad, type StatusBody } from './map-client-load';
import { waitFor } from './wait';

/** Starts the load for `durationMs`; `onStatus` sees every `/status` body the clients read. */
export function startFaultLoad(
  fault: FaultStack,
  durationMs: number,
  onStatus?: (body: StatusBody) => void,
): MapClientLoad {
  return startMapClientLoad({
    baseUrl: fault.nginx.url,
    headers: faultAuth(),
    clients: 4,
    durationMs,
    ...(onStatus === undefined ? {} : { onStatus }),
  });
}

/** Waits until the load has produced `count` more outcomes (the fault starts under load). */
export async function loadRunning(load: MapClientLoad, count = 20): Promise<void> {
  const from = load.outcomes.length;
  await waitFor(() => load.outcomes.length >= from + count, 10_000, 'load running', 20);
}
