/**
 * The radar source of an embedded replica as the person at the terminal and the health checks
 * see it. The MRMS follower's feed is watched: until one listing has answered, the replica is
 * not ready and not `healthy` (frames left in the data folder by an earlier run, such as
 * simulated ones, are not live radar of this source), and when the source fails or stays
 * silent for `noticeAfterMs` a plain-words notice says what failed and what to do. The
 * simulator needs no network: its source has always answered.
 */
import type { FileFeed } from '../domain/producer-ports';
import type { Logger } from '../logger';
import type { Component } from './component';

/** How long a source that neither answered nor failed may stay silent before the notice. */
const SOURCE_NOTICE_AFTER_MS = 10_000;

export interface SourceWatch {
  /** True once the source answered one listing (the simulator's: always). */
  readonly answered: () => boolean;
  /** Wraps a feed so that its listings are watched. */
  readonly watch: (feed: FileFeed) => FileFeed;
  /** Starts the silence timer; stops it. */
  readonly component: Component;
}

export interface SourceWatchOptions {
  readonly logger: Logger;
  /** Writes a notice for the person at the terminal (the API's stderr); default: none. */
  readonly notify?: (text: string) => void;
  readonly noticeAfterMs?: number;
}

/** The simulator's watch: nothing to wait for. */
export const ALWAYS_ANSWERED: SourceWatch = {
  answered: () => true,
  watch: (feed) => feed,
  component: { name: 'source-watch', start: async () => {}, stop: async () => {} },
};

/** An error and its causes in one line (`fetch failed: connect ECONNREFUSED 127.0.0.1:9`). */
function errorText(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e instanceof Error && parts.length < 4; e = e.cause)
    parts.push(e.message);
  return parts.length > 0 ? parts.join(': ') : String(error);
}

/** The notice for a source that has not answered: what failed, and the three ways on. */
function sourceNotice(describe: string, problem: string): string {
  return [
    '',
    `No MRMS radar yet: the source has not answered (${problem}).`,
    `  Source: ${describe}`,
    '  Nothing new is published until it answers; the service keeps trying and says here when it does.',
    '  What to do:',
    '  - check that this machine reaches the source (network, proxy, DNS); or',
    '  - set MRMS_SOURCE to a copy it can reach: another bucket, an http(s) listing or a',
    '    directory of MRMS files (docs/mrms.md); or',
    '  - run the simulator instead: npm start without RADAR_SOURCE=mrms.',
    '',
  ].join('\n');
}

/** A watch of the MRMS feed (`describe` names the source in the notice). */
export function createSourceWatch(options: SourceWatchOptions): SourceWatch {
  const { logger } = options;
  const notify = options.notify ?? (() => {});
  const noticeAfterMs = options.noticeAfterMs ?? SOURCE_NOTICE_AFTER_MS;
  let answered = false;
  let noticeGiven = false;
  let describe = 'the MRMS source';
  let timer: NodeJS.Timeout | undefined;

  const notice = (problem: string) => {
    if (answered || noticeGiven) return;
    noticeGiven = true;
    logger.warn({ feed: describe, problem }, 'radar source has not answered');
    notify(sourceNotice(describe, problem));
  };

  return {
    answered: () => answered,
    watch: (feed) => {
      describe = feed.describe;
      return {
        describe: feed.describe,
        read: (file, maxBytes) => feed.read(file, maxBytes),
        newest: async (count) => {
          try {
            const files = await feed.newest(count);
            if (!answered) {
              answered = true;
              if (noticeGiven) notify(`MRMS source answered: ${describe}\n`);
            }
            return files;
          } catch (error) {
            notice(errorText(error));
            throw error;
          }
        },
      };
    },
    component: {
      name: 'source-watch',
      start: async () => {
        timer = setTimeout(() => notice(`no answer in ${noticeAfterMs / 1000} s`), noticeAfterMs);
        timer.unref();
      },
      stop: async () => clearTimeout(timer),
    },
  };
}
