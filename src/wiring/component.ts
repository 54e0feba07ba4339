/**
 * A component is one piece a process is built from: a client, a watcher, a background loop.
 * Components start in order once the listeners are up and stop in reverse order at shutdown,
 * so whatever a component uses was started before it and is stopped after it.
 */
export interface Component {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A component with nothing to start: only a `stop` (a client to close). */
export function closer(name: string, stop: () => Promise<void> | void): Component {
  return { name, start: async () => {}, stop: async () => stop() };
}

/** Starts components in order. */
export async function startAll(components: readonly Component[]): Promise<void> {
  for (const component of components) await component.start();
}

/** Stop functions in reverse start order, for the shutdown plan. */
export function stoppers(components: readonly Component[]): Array<() => Promise<void>> {
  return [...components].reverse().map((component) => () => component.stop());
}
