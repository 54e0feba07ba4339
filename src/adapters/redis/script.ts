/**
 * Lua scripts as ioredis custom commands: ioredis sends `EVALSHA` and falls back to `EVAL`
 * when the server answers NOSCRIPT (after a restart or failover), on standalone, Sentinel and
 * Cluster clients alike. Each script runs atomically, which is what the catalog relies on.
 */
import type { RedisClient } from './client';

/** Runs a defined script with its keys (all in one hash slot) and arguments. */
export type ScriptRunner = (
  keys: readonly string[],
  args: readonly (string | number)[],
) => Promise<unknown>;

type CustomCommand = (...keysAndArgs: (string | number)[]) => Promise<unknown>;

/**
 * Defines `lua` on `client` under `name` (idempotent: defining it again replaces it) and
 * returns ioredis's command for it; `numberOfKeys` undefined: the keys count is the command's
 * first argument.
 */
function defineCommand(
  client: RedisClient,
  name: string,
  lua: string,
  numberOfKeys?: number,
): CustomCommand {
  client.defineCommand(name, numberOfKeys === undefined ? { lua } : { numberOfKeys, lua });
  const command = (client as unknown as Record<string, CustomCommand | undefined>)[name];
  if (typeof command !== 'function') throw new Error(`ioredis did not define the script ${name}`);
  return command;
}

/**
 * Defines `lua` on `client` under `name` (idempotent: defining it again replaces it) and
 * returns a typed runner. `numberOfKeys` is fixed, as `defineCommand` requires.
 */
export function defineScript(
  client: RedisClient,
  name: string,
  numberOfKeys: number,
  lua: string,
): ScriptRunner {
  const command = defineCommand(client, name, lua, numberOfKeys);
  return (keys, args) => {
    if (keys.length !== numberOfKeys) throw new Error(`script ${name} takes ${numberOfKeys} keys`);
    return command.call(client, ...keys, ...args);
  };
}

/**
 * Defines `lua` on `client` under `name` for a number of keys that varies per call (the keys
 * count is sent first, as `EVALSHA` takes it); all keys of one call must share a hash slot.
 */
export function defineVariadicScript(client: RedisClient, name: string, lua: string): ScriptRunner {
  const command = defineCommand(client, name, lua);
  return (keys, args) => command.call(client, keys.length, ...keys, ...args);
}
