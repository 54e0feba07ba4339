/**
 * Range selection for archives on top of `range-parser`: one satisfiable range -> 206, none
 * satisfiable -> 416, several or a malformed header or another unit -> whole archive (RFC 9110
 * lets a server ignore Range). Windows are absolute so the store never sees a suffix range.
 */
import parseRange from 'range-parser';
import type { ByteWindow } from '../../domain/ports';
import { boundedMemo } from '../../shared/bounded-memo';

export type RangeSelection =
  | { readonly kind: 'whole' }
  | { readonly kind: 'partial'; readonly window: ByteWindow; readonly end: number }
  | { readonly kind: 'unsatisfiable' };

/**
 * RFC 9110 §14.1.1 `ranges-specifier` for the `bytes` unit: range-specs with optional
 * whitespace only around the commas. range-parser reads each spec with `parseInt`, which
 * tolerates whitespace inside a spec (`0 - 0`, `-  9`) and then misreads some of them (a
 * spaced long suffix became unsatisfiable), so anything off the grammar is ignored here, as
 * the RFC allows, before range-parser sees it.
 */
const BYTE_RANGE_SET = /^bytes=[ \t]*(?:\d+-\d*|-\d+)(?:[ \t]*,[ \t]*(?:\d+-\d*|-\d+))*[ \t]*$/;

/**
 * RFC 9110 §14.1.2: a suffix longer than the representation selects all of it; range-parser
 * would call it unsatisfiable, so such suffixes are rewritten to `0-` first.
 */
function clampLongSuffixes(rangeHeader: string, size: number): string {
  return rangeHeader.replace(
    /([=,][ \t]*)-(\d+)(?=[ \t]*(?:,|$))/g,
    (spec, separator: string, digits: string) =>
      size > 0 && Number(digits) >= size ? `${separator}0-` : spec,
  );
}

const WHOLE: RangeSelection = { kind: 'whole' };
/**
 * Selections by (size, header): map clients of one archive ask for the same few hundred
 * windows (header, directories, the tiles of a view), so a repeat costs one lookup instead of
 * the grammar check and range-parser. Bounded: short headers only (a client's windows are
 * under 40 characters; a 16 KiB header is decided, not kept).
 */
const decided = boundedMemo<RangeSelection>({ maxEntries: 4096, maxKeyLength: 84 });

/** Decides what part of an archive of `size` bytes a `Range` header asks for. */
export function selectRange(rangeHeader: string | undefined, size: number): RangeSelection {
  if (rangeHeader === undefined) return WHOLE;
  return decided.get(`${size} ${rangeHeader}`, () => decide(rangeHeader, size));
}

function decide(rangeHeader: string, size: number): RangeSelection {
  // Only the `bytes` unit is understood (exactly, as RFC 9110 spells it); another unit or a
  // malformed set is ignored before range-parser could call it unsatisfiable.
  if (!BYTE_RANGE_SET.test(rangeHeader)) return WHOLE;
  const parsed = parseRange(size, clampLongSuffixes(rangeHeader, size));
  if (parsed === -2) return WHOLE;
  if (parsed === -1) return { kind: 'unsatisfiable' };
  // Several range-specs answer the whole archive (no multipart answers, as RFC 9110 allows),
  // even when range-parser kept only one of them.
  if (parsed.type !== 'bytes' || parsed.length !== 1 || rangeHeader.includes(',')) return WHOLE;
  const [range] = parsed;
  if (
    range === undefined ||
    !Number.isSafeInteger(range.start) ||
    !Number.isSafeInteger(range.end)
  ) {
    return { kind: 'unsatisfiable' };
  }
  return {
    kind: 'partial',
    window: { offset: range.start, length: range.end - range.start + 1 },
    end: range.end,
  };
}
