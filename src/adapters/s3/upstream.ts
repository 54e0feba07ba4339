/**
 * One upstream range GET of the S3 archive store: the response it waits for, why it was
 * cancelled, and what an S3 error body or a reset connection says.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { ArchiveObjectError } from '../../domain/archive-errors';
import type { Logger } from '../../logger';

/** Why a request ended before its response arrived, and what that says about the store. */
export type Verdict = 'failure' | 'release';

export interface Upstream {
  readonly response: IncomingMessage;
  readonly request: ClientRequest;
}

export class RequestCancelled extends Error {
  constructor(
    readonly reason: Error,
    readonly verdict: Verdict,
  ) {
    super(reason.message, { cause: reason });
  }
}

export function isConnectionReset(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

/** Reads a small error body (an S3 XML error document) and returns its `<Code>`. */
export async function errorCode(response: IncomingMessage): Promise<string | undefined> {
  let text = '';
  for await (const chunk of response) {
    if (text.length < 4096) text += (chunk as Buffer).toString('utf8');
  }
  return /<Code>([^<]{1,64})<\/Code>/.exec(text)?.[1];
}

/**
 * Logs each unservable object once per reason (a replaced object would otherwise log on every
 * read) and returns the error for the caller to throw.
 */
export function objectProblemReporter(
  logger: Logger,
): (key: string, err: ArchiveObjectError) => ArchiveObjectError {
  const reported = new Set<string>();
  return (key, err) => {
    const id = `${key}\0${err.reason}`;
    if (!reported.has(id)) {
      if (reported.size > 1000) reported.clear();
      reported.add(id);
      logger.warn({ key, reason: err.reason, err: err.message }, 'stored object not servable');
    }
    return err;
  };
}
