/**
 * The player over observed and forecast frames: "Latest" and following new frames mean the
 * latest observed frame (a forecast is never taken for the present), play runs through the
 * forecasts after the past, and the interpolation runs between consecutive frames only.
 */
import { radarTimeline } from '../../../src/client/timeline';
import { createPlayer, type PlayerState } from '../../../web/player';

const timeline = (observed: string[], leads: number[]) =>
  radarTimeline(
    {
      timestamps: observed,
      forecasts: leads.map((lead) => ({
        base: observed.at(-1)!,
        lead,
        valid: `2026112812${String(lead).padStart(2, '0')}`,
      })),
    },
    (path) => `http://x${path}`,
  );

function harness() {
  const shown: string[] = [];
  const states: PlayerState[] = [];
  const transitions: string[] = [];
  const warmed: string[] = [];
  const player = createPlayer({
    frames: { show: (key) => shown.push(key), preload: () => undefined, isLoaded: () => true },
    onChange: (state) => states.push(state),
    transition: async (from, to) => {
      transitions.push(`${from.key}>${to.key}`);
    },
    warm: (from, to) => warmed.push(`${from.key}>${to.key}`),
    frameMs: 10,
    dwellMs: 10,
  });
  return { player, shown, states, transitions, warmed };
}

afterEach(() => jest.useRealTimers());

it('shows and follows the latest observed frame, not the last forecast', () => {
  const { player, shown } = harness();
  player.setFrames(timeline(['202611281156', '202611281158'], []));
  player.latest();
  expect(shown.at(-1)).toBe('202611281158');
  player.setFrames(timeline(['202611281156', '202611281158', '202611281200'], [10, 20]));
  expect(shown.at(-1)).toBe('202611281200'); // followed the new observed frame
  expect(player.state().frames.map((f) => f.kind)).toEqual([
    'observed',
    'observed',
    'observed',
    'forecast',
    'forecast',
  ]);
  player.step(2);
  expect(player.current()).toMatchObject({ kind: 'forecast', lead: 20 });
  player.latest();
  expect(player.current()).toMatchObject({ kind: 'observed', key: '202611281200' });
});

it('a shown forecast that leaves the list gives way to the frame valid at or after its time', () => {
  const { player } = harness();
  player.setFrames(timeline(['202611281158', '202611281200'], [10, 20]));
  player.seek(3); // +20, valid 12:20
  player.setFrames(
    timeline(
      ['202611281200', '202611281210'],
      [10, 20].map((l) => l),
    ),
  );
  // The new nowcast's base is 12:10: its +10 is valid 12:20.
  expect(player.current()?.valid).toBe('202611281220');
});

it('plays the past then the forecasts, interpolating between consecutive frames only', async () => {
  jest.useFakeTimers();
  const { player, transitions, shown, warmed } = harness();
  player.setFrames(timeline(['202611281158', '202611281200'], [10]));
  expect(shown).toEqual(['202611281200']); // the first list shows the latest observed frame
  player.seek(0);
  player.play();
  for (let i = 0; i < 20; i++) await jest.advanceTimersByTimeAsync(10);
  player.pause();
  expect(shown.slice(1, 5)).toEqual([
    '202611281158',
    '202611281200',
    'forecast-202611281200-010',
    '202611281158',
  ]);
  expect(transitions.slice(0, 2)).toEqual([
    '202611281158>202611281200',
    '202611281200>forecast-202611281200-010',
  ]);
  // Each shown frame has the next transition prepared ahead while it is on screen.
  expect(warmed).toContain('202611281200>forecast-202611281200-010');
  // The wrap from the last forecast back to the oldest frame is a cut, not a transition.
  expect(transitions).not.toContain('forecast-202611281200-010>202611281158');
});

it('prepares the transition after the running one while it runs, not when it is due', async () => {
  jest.useFakeTimers();
  const warmed: string[] = [];
  let finish: () => void = () => undefined;
  const started: string[] = [];
  const player = createPlayer({
    frames: { show: () => undefined, preload: () => undefined, isLoaded: () => true },
    onChange: () => undefined,
    transition: (from, to) => {
      started.push(`${from.key}>${to.key}`);
      return new Promise<void>((resolve) => (finish = resolve));
    },
    warm: (from, to) => warmed.push(`${from.key}>${to.key}`),
    frameMs: 10,
  });
  player.setFrames(timeline(['202611281158', '202611281200'], [10]));
  player.seek(0);
  player.play();
  // The first transition is prepared as play starts, before it is due.
  expect(warmed).toEqual(['202611281158>202611281200']);
  await jest.advanceTimersByTimeAsync(10);
  // The first transition runs and has not finished: the one after it is already being drawn.
  expect(started).toEqual(['202611281158>202611281200']);
  expect(warmed).toContain('202611281200>forecast-202611281200-010');
  finish();
  player.pause();
});
