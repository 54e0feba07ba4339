/**
 * What a failure answers: every error thrown while deciding an answer becomes the error
 * record with the exact status message (`error-map.ts` maps the core's own errors); unknown
 * errors become a logged 500 whose body reveals nothing internal. A client that already left
 * gets no answer at all.
 */
import { ClientGoneError, StoreUnavailableError } from '../../domain/archive-errors';
import { HttpError } from '../../errors';
import type { Logger } from '../../logger';
import { createErrorLogSampler } from './error-log-sampler';
import { isRoutineRefusal, toHttpError } from './error-map';
import { errorAnswer, type Answer } from './answer';

/** Where a failure happened, for its log line and its answer. */
export interface FailureContext {
  readonly method: string;
  readonly path: string;
  readonly route: string;
  /** The client left: the answer is `abandoned`, nothing is written. */
  readonly gone: boolean;
}

/**
 * Creates the failure answerer; 5xx causes go to `logger` through a sampler (one full line per
 * kind of cause, then at most one per 10 s with a count; causes already reported at their
 * source, such as breaker fast-fails, none).
 */
export function createFailureAnswerer(
  logger: Logger,
): (err: unknown, context: FailureContext, decided?: Pick<Answer, 'caller' | 'rate'>) => Answer {
  const sampler = createErrorLogSampler({ logger });
  return (err, context, decided = {}) => {
    // A client that left is a client event (the request log records 499): nobody to answer,
    // nothing to log as an error.
    if (err instanceof ClientGoneError || context.gone)
      return { status: 499, route: context.route, headers: [], abandoned: true, ...decided };
    const error = toHttpError(err);
    if (isRoutineRefusal(err)) {
      // Per-object problems and refused reads are counted by reason and reported once at
      // their source; a line per request would only flood the log.
      logger.debug({ err: (err as Error).message, path: context.path }, 'archive read refused');
    } else if (error.status >= 500) {
      // The underlying failure (e.g. ECONNREFUSED) names the kind of line the sampler keeps.
      const wrapped = err instanceof HttpError || err instanceof StoreUnavailableError;
      const cause = wrapped ? (err.cause ?? err) : err;
      sampler.report(error.status, cause, { path: context.path, method: context.method });
    }
    return errorAnswer(error, context.route, decided);
  };
}
