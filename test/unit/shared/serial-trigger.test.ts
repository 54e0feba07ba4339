/** The serial trigger: never two runs at once, triggers during a run coalesce into one more. */
import { createSerialTrigger } from '../../../src/shared/serial-trigger';

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

it('runs once per trigger when idle, and never two runs at once', async () => {
  let active = 0;
  let maxActive = 0;
  let runs = 0;
  const trigger = createSerialTrigger(async () => {
    active++;
    maxActive = Math.max(maxActive, active);
    await new Promise((r) => setImmediate(r));
    runs++;
    active--;
  }, fail);
  trigger.trigger();
  await trigger.idle();
  expect(runs).toBe(1);
  trigger.trigger();
  await trigger.idle();
  expect(runs).toBe(2);
  expect(maxActive).toBe(1);
});

it('triggers during a run cause exactly one more run (none lost, none doubled)', async () => {
  const first = gate();
  let runs = 0;
  const trigger = createSerialTrigger(async () => {
    runs++;
    if (runs === 1) await first.opened;
  }, fail);
  trigger.trigger();
  for (let i = 0; i < 5; i++) trigger.trigger();
  expect(runs).toBe(1);
  first.open();
  await trigger.idle();
  expect(runs).toBe(2);
});

it('a failing run is reported and does not stop later runs', async () => {
  const errors: unknown[] = [];
  let runs = 0;
  const trigger = createSerialTrigger(
    async () => {
      runs++;
      if (runs === 1) throw new Error('boom');
    },
    (err) => errors.push(err),
  );
  trigger.trigger();
  await trigger.idle();
  trigger.trigger();
  await trigger.idle();
  expect(runs).toBe(2);
  expect(errors.map((e) => (e as Error).message)).toEqual(['boom']);
});

function fail(err: unknown): never {
  throw err;
}
