/**
 * The guard's counters, declared where they are fed: auth failures by reason and rate-limit
 * decisions by tier, returned only as the guard's listeners, so adding a guard metric touches
 * this file. Decisions are tallies added at scrape time (one map lookup per request).
 */
import { Counter, type Registry } from 'prom-client';
import { AUTH_FAILURE_REASONS, type AuthFailureListener } from '../http/core/authorise';
import type { RateDecisionListener } from '../http/core/core';
import { zeroed } from './registry';
import { createTallies, type Tally } from './tally';

export interface GuardEvents {
  readonly onAuthFailure: AuthFailureListener;
  readonly onRateDecision: RateDecisionListener;
}

/**
 * Registers the guard metrics on `registry`. Decisions of the default tier start at 0; other
 * tiers appear with their first request.
 */
export function createGuardMetrics(
  registry: Registry,
  options: { defaultLimit: number },
): GuardEvents {
  const tallies = createTallies();
  const decisions = new Counter({
    name: 'radar_rate_limit_decisions_total',
    help: 'Rate-limit decisions, by decision (allowed, limited) and key tier (the per-window limit).',
    labelNames: ['decision', 'tier'] as const,
    registers: [registry],
    collect: tallies.flush,
  });
  for (const decision of ['allowed', 'limited'])
    decisions.inc({ decision, tier: String(options.defaultLimit) }, 0);
  const authFailures = zeroed(
    new Counter({
      name: 'radar_auth_failures_total',
      help: 'Requests refused by authentication (401) or authorisation (403), by reason.',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    AUTH_FAILURE_REASONS,
  );
  const decisionTallies = new Map<string, Tally>();
  return {
    onAuthFailure: (reason) => authFailures.inc({ reason }),
    onRateDecision: (allowed, limit) => {
      const key = allowed ? `a${limit}` : `l${limit}`;
      let tally = decisionTallies.get(key);
      if (tally === undefined) {
        const labels = { decision: allowed ? 'allowed' : 'limited', tier: String(limit) };
        tally = tallies.counter(decisions, labels);
        decisionTallies.set(key, tally);
      }
      tally.add();
    },
  };
}
