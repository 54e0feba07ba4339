/**
 * `Accept-Encoding` negotiation for prepared representations (RFC 9110 12.5.3): the coding
 * with the highest q-value among those prepared; on a tie the smaller one (br, then gzip,
 * then identity), since the server chooses among equals and browsers list gzip first. A
 * header that refuses everything gets identity (the RFC allows ignoring the field rather than
 * answering 406). `x-gzip` counts as `gzip`. Answers are cached per header value: clients send a
 * handful of distinct values, so a request costs one map lookup (bounded in entries and key
 * length).
 */
import type { StatusEncoding } from '../../domain/status-document';
import { boundedMemo } from '../../shared/bounded-memo';

const PREFERENCE: readonly StatusEncoding[] = ['br', 'gzip', 'identity'];
// Real values are under 40 characters; a longer one is negotiated every time, never kept.
const negotiated = boundedMemo<StatusEncoding>({ maxEntries: 256, maxKeyLength: 128 });

function qualities(header: string): Map<string, number> {
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.split(';');
    const lower = rawName?.trim().toLowerCase();
    if (!lower) continue;
    // RFC 9110 §8.4.1.3: a recipient should consider "x-gzip" equivalent to "gzip".
    const name = lower === 'x-gzip' ? 'gzip' : lower;
    let value = 1;
    for (const param of params) {
      const [key, raw] = param.split('=');
      if (key?.trim().toLowerCase() === 'q') {
        const parsed = Number(raw?.trim());
        value = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
      }
    }
    q.set(name, Math.max(q.get(name) ?? 0, value));
  }
  return q;
}

function negotiate(header: string): StatusEncoding {
  const q = qualities(header);
  const star = q.get('*');
  let best: StatusEncoding = 'identity';
  let bestQ = 0;
  for (const coding of PREFERENCE) {
    // identity is acceptable unless refused explicitly (or by `*;q=0`).
    const fallback = coding === 'identity' ? (star === 0 ? 0 : 0.001) : (star ?? 0);
    const value = q.get(coding) ?? fallback;
    if (value > bestQ) {
      best = coding;
      bestQ = value;
    }
  }
  return best;
}

/** The coding to send for this `Accept-Encoding` value (absent: identity). */
export function preferredEncoding(header: string | undefined): StatusEncoding {
  if (header === undefined || header === '') return 'identity';
  return negotiated.get(header, () => negotiate(header));
}
