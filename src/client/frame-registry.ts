/**
 * Which frames' archive readers the pmtiles `Protocol` holds. The protocol keeps every reader
 * it is given for the life of the page, and radar frames expire every two minutes, so a long
 * running map must drop the readers of frames that left the status list. This registry adds
 * authenticated readers, releases them, and guards the protocol so a request for a released
 * frame fails instead of silently creating an unauthenticated reader.
 */
import type { Protocol } from 'pmtiles';
import type { RadarClient } from './radar-client';

/** Keeps one archive reader per registered timestamp in a pmtiles `Protocol`. */
export interface FrameRegistry {
  /** The protocol the readers live in (register it with `maplibregl.addProtocol`). */
  readonly protocol: Protocol;
  /** Registers `timestamp` (if needed) and returns its `pmtiles://` source URL. */
  register(timestamp: string): string;
  /** Drops `timestamp`'s reader and its cached header and directories. */
  release(timestamp: string): void;
  /** Releases every frame not in `timestamps`; returns the released timestamps. */
  retain(timestamps: Iterable<string>): string[];
  has(timestamp: string): boolean;
  /** Registered timestamps, in registration order. */
  registered(): string[];
}

/** URL scheme the pmtiles `Protocol` parses; its handler only understands this prefix. */
export const PMTILES_SCHEME = 'pmtiles';

/** Creates a registry over `protocol` (a new one by default) opening readers with `client`. */
export function createFrameRegistry(client: RadarClient, protocol: Protocol): FrameRegistry {
  const keys = new Map<string, string>();
  return {
    protocol,
    register(timestamp) {
      let key = keys.get(timestamp);
      if (key === undefined) {
        const archive = client.openArchive(timestamp);
        key = archive.source.getKey();
        protocol.add(archive);
        keys.set(timestamp, key);
      }
      return `${PMTILES_SCHEME}://${key}`;
    },
    release(timestamp) {
      const key = keys.get(timestamp);
      if (key === undefined) return;
      keys.delete(timestamp);
      protocol.tiles.delete(key);
    },
    retain(timestamps) {
      const keep = new Set(timestamps);
      const released = [...keys.keys()].filter((t) => !keep.has(t));
      for (const timestamp of released) this.release(timestamp);
      return released;
    },
    has: (timestamp) => keys.has(timestamp),
    registered: () => [...keys.keys()],
  };
}

/** The request MapLibre hands a protocol handler (the part used here). */
export interface ProtocolRequest {
  readonly url: string;
  readonly type?: string;
}

/** A MapLibre (v4+) protocol handler. */
export type ProtocolHandler = (
  request: ProtocolRequest,
  abortController: AbortController,
) => Promise<{ data: unknown }>;

/**
 * The archive key inside a `pmtiles://` request URL: TileJSON, or a `/{z}/{x}/{y}` tile, with
 * the tile type's extension when the protocol read the archive's metadata (`.png`).
 */
export function protocolKey(url: string): string | undefined {
  const prefix = `${PMTILES_SCHEME}://`;
  if (!url.startsWith(prefix)) return undefined;
  const rest = url.slice(prefix.length);
  const tile = /^(.+)\/\d+\/\d+\/\d+(?:\.[a-z]+)?$/.exec(rest);
  return tile ? tile[1] : rest;
}

/**
 * The handler to pass to `maplibregl.addProtocol('pmtiles', ...)`: serves registered archives
 * through `protocol` and rejects any other URL, where pmtiles would otherwise create a plain,
 * unauthenticated reader (every request of which the service answers 401).
 */
export function guardedProtocolHandler(protocol: Protocol): ProtocolHandler {
  return (request, abortController) => {
    const key = protocolKey(request.url);
    if (key === undefined || !protocol.tiles.has(key)) {
      return Promise.reject(new Error(`radar frame not registered: ${request.url}`));
    }
    return protocol.tilev4(request as Parameters<Protocol['tilev4']>[0], abortController);
  };
}
