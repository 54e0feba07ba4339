/**
 * The retained view drops a timestamp at the moment it passes retention, on its own timer and
 * without anyone pruning the source; listeners (the status document, the warmer) hear of it.
 */
import { createMemoryCatalog } from '../../../src/adapters/memory/catalog';
import { createRetainedCatalog } from '../../../src/serving/retained-catalog';
import { createStatusDocumentSource } from '../../../src/domain/status-document';
import { formatTimestamp, parseTimestamp } from '../../../src/domain/timestamps';

const T0 = parseTimestamp('202611221400')!;
const MIN = 60_000;
const meta = (timestamp: string) => ({
  timestamp,
  size: 1000,
  etag: `"${timestamp}"`,
  lastModified: new Date(T0),
});

beforeEach(() => jest.useFakeTimers({ now: T0 + 30_000 }));
afterEach(() => jest.useRealTimers());

it('drops each timestamp when it expires, on a timer, and re-renders the status document', async () => {
  const source = createMemoryCatalog();
  for (const m of [0, -2, -4]) await source.publish(meta(formatTimestamp(T0 + m * MIN)));
  // Retention 5 min: 13:56 expires at 14:01:00.001, 13:58 at 14:03:00.001.
  const view = createRetainedCatalog(source, { retentionS: 300, now: Date.now });
  const seen: string[][] = [];
  view.subscribe((snapshot) => seen.push([...snapshot.timestamps]));
  const doc = createStatusDocumentSource({ catalog: view, healthy: () => true });
  const listed = () => JSON.parse(doc()!.body.toString()).timestamps as string[];

  expect(listed()).toEqual(['202611221400', '202611221358', '202611221356']);
  jest.advanceTimersByTime(30_000); // 14:01:00.000: not yet strictly older than the cutoff
  expect(view.current().timestamps).toHaveLength(3);
  jest.advanceTimersByTime(1);
  expect(listed()).toEqual(['202611221400', '202611221358']);
  expect(view.current().get('202611221356')).toBeUndefined();
  jest.advanceTimersByTime(2 * MIN);
  expect(listed()).toEqual(['202611221400']);
  expect(seen).toEqual([['202611221400', '202611221358'], ['202611221400']]);
  // The source was never pruned: the view alone decided.
  expect(source.current().timestamps).toHaveLength(3);

  // A publication reaches the view at once; nothing expired is let back in.
  await source.publish(meta('202611221402'));
  expect(listed()).toEqual(['202611221402', '202611221400']);
  view.stop();
});

it('never lists an already expired timestamp and arms no timer for a long retention', async () => {
  const source = createMemoryCatalog();
  await source.publish(meta(formatTimestamp(T0 - 10 * MIN)));
  const view = createRetainedCatalog(source, { retentionS: 60, now: Date.now });
  expect(view.current().timestamps).toEqual([]);
  view.stop();

  const long = createRetainedCatalog(source, { retentionS: 10 * 365 * 86400, now: Date.now });
  expect(long.current().timestamps).toEqual([formatTimestamp(T0 - 10 * MIN)]);
  // The expiry is years away: the timer re-arms at setTimeout's limit instead of overflowing.
  jest.advanceTimersByTime(2 ** 31);
  expect(long.current().timestamps).toHaveLength(1);
  long.stop();
  expect(jest.getTimerCount()).toBe(0);
});
