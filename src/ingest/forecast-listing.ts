/**
 * The forecast listing rule, pure: from the valid forecast frames ingest holds and the manifest
 * stored last, the next manifest and which bases' objects may go.
 *
 * - A base is complete when it has a valid frame for every lead of its cycle (the `leads` its
 *   frames' metadata name, all alike). The listed base is the newest complete one.
 * - A base older than the listed one is superseded from the first pass that saw it so; a
 *   complete superseded base stays readable (unlisted) until `graceMs` after that, then leaves.
 * - A base older than the observed retention (`cutoffMs`) leaves whatever it is.
 * - Objects of a base that is not readable and either left retention or was superseded more
 *   than `graceMs` ago are deleted; a newer incomplete base is kept (it is being produced).
 */
import type { ForecastBase, ForecastManifest } from '../domain/forecast-catalog';
import type { ForecastFrameId } from '../domain/forecast-frames';
import type { ArchiveMeta } from '../domain/ports';
import { parseTimestamp } from '../domain/timestamps';

/** A forecast frame ingest validated. */
export interface ValidFrame {
  readonly id: ForecastFrameId;
  /** Every lead of its base's cycle, ascending. */
  readonly leads: readonly number[];
  /** Its catalog entry: `timestamp` is the frame's archive key. */
  readonly meta: ArchiveMeta;
}

export interface ListingInputs {
  readonly frames: Iterable<ValidFrame>;
  /** When each base was first seen superseded (epoch ms); updated in place. */
  readonly superseded: Map<string, number>;
  readonly nowMs: number;
  readonly graceMs: number;
  /** Observed retention's cutoff (epoch ms). */
  readonly cutoffMs: number;
}

export interface ListingDecision {
  readonly manifest: ForecastManifest;
  /** Whether the objects of a base (not readable) may be deleted now. */
  expired(base: string): boolean;
}

const sameLeads = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((lead, i) => lead === b[i]);

/** The complete bases among `frames`, newest first, each with its frames in lead order. */
function completeBases(frames: Iterable<ValidFrame>): ForecastBase[] {
  const byBase = new Map<string, ValidFrame[]>();
  for (const frame of frames) {
    const list = byBase.get(frame.id.base) ?? [];
    list.push(frame);
    byBase.set(frame.id.base, list);
  }
  const complete: ForecastBase[] = [];
  for (const [base, list] of byBase) {
    const leads = list[0]!.leads;
    if (!list.every((f) => sameLeads(f.leads, leads))) continue;
    const byLead = new Map(list.map((f) => [f.id.lead, f.meta]));
    if (!leads.every((lead) => byLead.has(lead))) continue;
    complete.push({ base, leads, frames: leads.map((lead) => byLead.get(lead)!) });
  }
  return complete.sort((a, b) => (a.base < b.base ? 1 : -1));
}

/** Applies the rule (see the module comment). */
export function decideListing(inputs: ListingInputs): ListingDecision {
  const { superseded, nowMs, graceMs, cutoffMs } = inputs;
  const retained = (base: string) => (parseTimestamp(base) ?? -Infinity) >= cutoffMs;
  const complete = completeBases(inputs.frames).filter((b) => retained(b.base));
  const listed = complete[0];
  const isSuperseded = (base: string) => listed !== undefined && base < listed.base;
  const supersededAt = (base: string): number => {
    let at = superseded.get(base);
    if (at === undefined) superseded.set(base, (at = nowMs));
    return at;
  };
  const bases: ForecastBase[] = [];
  if (listed !== undefined) bases.push(listed);
  for (const b of complete.slice(1)) {
    const at = supersededAt(b.base);
    if (nowMs - at < graceMs) bases.push({ ...b, supersededAtMs: at });
  }
  const readable = new Set(bases.map((b) => b.base));
  return {
    manifest: { bases },
    expired(base) {
      if (readable.has(base)) return false;
      if (!retained(base)) return true;
      return isSuperseded(base) && nowMs - supersededAt(base) >= graceMs;
    },
  };
}
