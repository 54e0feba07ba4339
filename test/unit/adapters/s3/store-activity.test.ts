/**
 * A busy store is one that delivered something strictly after a read got its socket: the last
 * bytes of the previous read on the same kept-alive socket, noted at the very instant the
 * socket is handed over, are no sign of a busy store.
 */
import { createStoreActivity } from '../../../../src/adapters/s3/store-activity';

it('counts only deliveries strictly after the mark', () => {
  let t = 1000;
  const activity = createStoreActivity(() => t);
  expect(activity.deliveredSince(1000)).toBe(false);
  activity.note(); // the previous read's last chunk, at the instant of the next socket
  expect(activity.deliveredSince(1000)).toBe(false);
  t = 1000.25;
  activity.note(); // another read's bytes a quarter of a millisecond later
  expect(activity.deliveredSince(1000)).toBe(true);
});

it('uses a clock finer than a millisecond by default', () => {
  const activity = createStoreActivity();
  const mark = activity.now();
  expect(Number.isInteger(mark) && Number.isInteger(activity.now())).toBe(false);
});
