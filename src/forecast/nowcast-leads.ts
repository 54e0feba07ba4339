/**
 * The leads a producer forecasts (`NOWCAST_LEADS`): minutes ahead, checked once at start so a
 * bad list fails the configuration, never a cycle. src/config.ts reads the variable; this is
 * only its schema.
 */
import { z } from 'zod';

/** Minutes ahead the producers forecast by default. */
export const DEFAULT_NOWCAST_LEADS: readonly number[] = Object.freeze([10, 20, 30, 40, 50, 60]);

/** The longest lead accepted: the extrapolation holds the motion still, for hours at most. */
export const MAX_NOWCAST_LEAD = 360;

/**
 * The leads of a comma-separated list of minutes, or why it is refused: each a multiple of 2
 * (the extrapolation's step) in 2..{@link MAX_NOWCAST_LEAD}, ascending, each once.
 */
export function parseNowcastLeads(text: string): number[] | string {
  const parts = text.split(',').map((p) => p.trim());
  const leads = parts.map(Number);
  const bad = parts.find(
    (p, i) =>
      !/^[0-9]+$/.test(p) || leads[i]! < 2 || leads[i]! > MAX_NOWCAST_LEAD || leads[i]! % 2 !== 0,
  );
  if (bad !== undefined)
    return `"${bad}" is not a lead: minutes, a multiple of 2 (the extrapolation's step) in 2..${MAX_NOWCAST_LEAD}`;
  if (leads.some((lead, i) => i > 0 && lead <= leads[i - 1]!))
    return 'leads must be ascending, each once';
  return leads;
}

/** The schema of `NOWCAST_LEADS` (default 10,20,30,40,50,60): the leads, or an issue. */
export const NOWCAST_LEADS_SETTING = z
  .string()
  .default(DEFAULT_NOWCAST_LEADS.join(','))
  .transform((text, ctx): number[] => {
    const leads = parseNowcastLeads(text);
    if (typeof leads !== 'string') return leads;
    ctx.addIssue({ code: 'custom', message: leads });
    return z.NEVER;
  });
