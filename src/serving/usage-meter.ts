/**
 * The replica's usage counts in memory, per API key and UTC hour, until the flusher takes them
 * (`usage-flusher.ts`). Counting a request is a map lookup and five additions into a typed
 * array: the only allocation is a key-hour's first request (its cell), and a cell whose counts
 * were taken is reused by the same key's next request, in the same hour or the next.
 *
 * Memory is bounded: at most `maxEntries` key-hours are held (counted and not yet taken, or
 * idle and kept for reuse). Past that, a request of a key-hour not already held is not counted
 * and only tallied as dropped (`takeDropped`); key-hours already held keep counting. Idle cells
 * of past hours are forgotten at the next take.
 */
import {
  BYTES_FIELD,
  hourOf,
  REQUESTS_FIELD,
  routeBytesField,
  routeField,
  statusField,
  type UsageEntry,
} from '../domain/usage';

export interface UsageMeterOptions {
  /** Key-hours held at most (`RADAR_USAGE_MAX_ENTRIES`). */
  readonly maxEntries: number;
  readonly now?: () => number;
}

/** What the request recorder feeds: one call per answered request that named a known key. */
export interface UsageCounter {
  count(keyId: string, route: string, status: number, bytes: number): void;
}

export interface UsageMeter extends UsageCounter {
  /** Every count not taken yet, one entry per key-hour, and zeroes them (a flush's batch). */
  take(): UsageEntry[];
  /** Requests not counted since the last call because `maxEntries` key-hours were held. */
  takeDropped(): number;
  /** Key-hours held now. */
  size(): number;
}

/** One key's counts in one hour, by slot (slot → field name in `FieldSlots`). */
interface Cell {
  readonly keyId: string;
  hour: number;
  values: Float64Array;
}

const REQUESTS_SLOT = 0;
const BYTES_SLOT = 1;
const FIRST_CELL_SLOTS = 32;
/** Statuses are three digits; anything else (none is written) shares one slot. */
const STATUS_LIMIT = 1000;

/** Field names by slot, assigned on first use; the same for every cell of a meter. */
class FieldSlots {
  readonly names: string[] = [REQUESTS_FIELD, BYTES_FIELD];
  private readonly statuses = new Int32Array(STATUS_LIMIT).fill(-1);
  private readonly routes = new Map<string, number>();

  status(status: number): number {
    const code = status >= 0 && status < STATUS_LIMIT ? status : 0;
    let slot = this.statuses[code]!;
    if (slot < 0) {
      slot = this.add(statusField(code));
      this.statuses[code] = slot;
    }
    return slot;
  }

  /** The slot of the route's requests; its bytes are the next slot. */
  route(route: string): number {
    let slot = this.routes.get(route);
    if (slot === undefined) {
      slot = this.add(routeField(route));
      this.add(routeBytesField(route));
      this.routes.set(route, slot);
    }
    return slot;
  }

  private add(name: string): number {
    this.names.push(name);
    return this.names.length - 1;
  }
}

/** An empty meter; the request recorder counts into it, the flusher takes from it. */
export function createUsageMeter(options: UsageMeterOptions): UsageMeter {
  const now = options.now ?? Date.now;
  const slots = new FieldSlots();
  /** The newest cell of each key. */
  const current = new Map<string, Cell>();
  /** Cells of a key's earlier hour that still hold counts (the key moved on to a new hour). */
  let sealed: Cell[] = [];
  let dropped = 0;

  const held = () => current.size + sealed.length;

  /** The key's cell for `hour`: its idle cell reused, or a new one within the bound. */
  const open = (keyId: string, hour: number, previous: Cell | undefined): Cell | undefined => {
    if (previous !== undefined) {
      if (previous.values[REQUESTS_SLOT] === 0) {
        previous.hour = hour;
        return previous;
      }
      // Still holds counts of its hour: kept until taken.
      sealed.push(previous);
      current.delete(keyId);
    }
    if (held() >= options.maxEntries) return undefined;
    const cell: Cell = {
      keyId,
      hour,
      values: new Float64Array(Math.max(FIRST_CELL_SLOTS, slots.names.length)),
    };
    current.set(keyId, cell);
    return cell;
  };

  const entryOf = (cell: Cell): UsageEntry => {
    const counts: Record<string, number> = {};
    const { values } = cell;
    for (let i = 0; i < values.length; i++)
      if (values[i] !== 0) counts[slots.names[i]!] = values[i]!;
    return { keyId: cell.keyId, hour: cell.hour, counts };
  };

  return {
    count(keyId, route, status, bytes) {
      const hour = hourOf(now());
      let cell = current.get(keyId);
      if (cell === undefined || cell.hour !== hour) {
        cell = open(keyId, hour, cell);
        if (cell === undefined) {
          dropped++;
          return;
        }
      }
      const statusSlot = slots.status(status);
      const routeSlot = slots.route(route);
      let values = cell.values;
      if (values.length < slots.names.length) {
        // A field this cell has not seen yet (a new status or route): grow it once.
        const grown = new Float64Array(slots.names.length + 8);
        grown.set(values);
        values = cell.values = grown;
      }
      values[REQUESTS_SLOT]! += 1;
      values[BYTES_SLOT]! += bytes;
      values[statusSlot]! += 1;
      values[routeSlot]! += 1;
      values[routeSlot + 1]! += bytes;
    },
    take() {
      const entries = sealed.map(entryOf);
      sealed = [];
      const hourNow = hourOf(now());
      for (const [keyId, cell] of current) {
        if (cell.values[REQUESTS_SLOT] !== 0) {
          entries.push(entryOf(cell));
          cell.values.fill(0);
        } else if (cell.hour < hourNow) current.delete(keyId);
      }
      return entries;
    },
    takeDropped() {
      const n = dropped;
      dropped = 0;
      return n;
    },
    size: held,
  };
}
