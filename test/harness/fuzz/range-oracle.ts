/**
 * An independent model of what a `Range` header may produce (RFC 9110 §14 plus the decisions
 * of docs/behaviour.md), written from the RFC grammar with BigInt arithmetic rather than from the
 * service's code. It returns the set of acceptable answers, because the RFC leaves a server
 * some freedom (it may ignore Range; an invalid range-spec may be ignored or refused):
 *
 * - no header, another unit, or a syntax error -> the whole archive (200);
 * - exactly one range-spec, satisfiable -> 206 with exactly that window, the end clamped and a
 *   suffix longer than the archive selecting all of it;
 * - nothing satisfiable -> 416;
 * - several range-specs -> 200 whole (or 206 when exactly one of them is satisfiable).
 *
 * `value` is the header as the server sees it (latin1 decoding of the bytes sent).
 */

export interface RangeVerdict {
  readonly whole: boolean;
  readonly unsatisfiable: boolean;
  /** Acceptable 206 windows as [first, last] inclusive. */
  readonly windows: ReadonlyArray<readonly [number, number]>;
}

const OWS = /^[ \t]+|[ \t]+$/g;

type Spec =
  | { readonly kind: 'span'; readonly first: bigint; readonly last: bigint | undefined }
  | { readonly kind: 'suffix'; readonly length: bigint };

function parseSpec(text: string): Spec | undefined {
  const span = /^([0-9]+)-([0-9]*)$/.exec(text);
  if (span)
    return {
      kind: 'span',
      first: BigInt(span[1]!),
      last: span[2] === '' ? undefined : BigInt(span[2]!),
    };
  const suffix = /^-([0-9]+)$/.exec(text);
  if (suffix) return { kind: 'suffix', length: BigInt(suffix[1]!) };
  return undefined;
}

function parseLooseSpec(text: string): Spec | undefined {
  const dash = text.indexOf('-');
  if (dash === -1) return undefined;
  const first = text.slice(0, dash).trim();
  const last = text.slice(dash + 1).trim();
  if (first === '' && /^[0-9]+$/.test(last)) return { kind: 'suffix', length: BigInt(last) };
  if (/^[0-9]+$/.test(first) && (last === '' || /^[0-9]+$/.test(last))) {
    return { kind: 'span', first: BigInt(first), last: last === '' ? undefined : BigInt(last) };
  }
  return undefined;
}

const WHOLE: RangeVerdict = { whole: true, unsatisfiable: false, windows: [] };

export function rangeOracle(value: string | undefined, size: number): RangeVerdict {
  const header = value?.replace(OWS, '');
  if (header === undefined || header === '') return WHOLE;
  const eq = header.indexOf('=');
  if (eq === -1) return WHOLE;
  const unit = header.slice(0, eq);
  // Range units are case-insensitive (RFC 9110 §14.1); honouring only `bytes` is allowed too.
  if (unit.toLowerCase() !== 'bytes') return WHOLE;
  const caseVariant = unit !== 'bytes';

  const S = BigInt(size);
  let lenient = caseVariant;
  let invalid = false;
  const satisfiable: Array<readonly [number, number]> = [];
  const parts = header.slice(eq + 1).split(',');
  for (const part of parts) {
    let spec = parseSpec(part.replace(OWS, ''));
    if (spec === undefined) {
      // A lenient server may also accept whitespace around the dash, or trim more than
      // SP/HTAB (e.g. NBSP), and still understand the range-spec; ignoring the header is fine too.
      spec = parseLooseSpec(part);
      if (spec === undefined) return WHOLE;
      lenient = true;
    }
    if (spec.kind === 'span') {
      if (spec.last !== undefined && spec.last < spec.first) {
        invalid = true;
        continue;
      }
      if (spec.first >= S) continue;
      const last = spec.last === undefined || spec.last >= S ? S - 1n : spec.last;
      satisfiable.push([Number(spec.first), Number(last)]);
    } else {
      if (spec.length === 0n) continue;
      const first = spec.length >= S ? 0n : S - spec.length;
      satisfiable.push([Number(first), Number(S - 1n)]);
    }
  }

  if (satisfiable.length === 0)
    return { whole: invalid || lenient, unsatisfiable: true, windows: [] };
  if (parts.length === 1) return { whole: lenient, unsatisfiable: false, windows: satisfiable };
  return {
    whole: true,
    unsatisfiable: false,
    windows: satisfiable.length === 1 ? satisfiable : [],
  };
}
