/**
 * The name a process goes by where several processes share a store: the owner of a leader
 * lease, the source of usage batches.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';

/**
 * `host:pid:random`: readable in logs and in the store, and new on every start (a restarted
 * process, or a pid reused in another container, never takes over the old one's identity).
 */
export function processInstanceName(): string {
  return `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}
