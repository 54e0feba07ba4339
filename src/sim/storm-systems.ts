/**
 * The weather of the simulation: which storm systems exist at an instant, where they are and
 * how strong. Systems are born in fixed time slots and drawn from a hash of (seed, slot), so
 * the state at any instant is computed directly, without history, identically on every
 * thread, and consecutive instants differ only by smooth motion and growth.
 */
import { type Echo, lerp } from './echo';
import { createUniformSequence, hashInts, type UniformSequence } from './noise';
import { convectiveCluster, frontalBand, rainShield, showerField } from './storm-kinds';

const HOUR = 3600;

/** Builds the echoes of one living system from its random stream, age and life span. */
type SystemBuilder = (
  rnd: UniformSequence,
  ageS: number,
  lifeS: number,
  epochS: number,
  out: Echo[],
) => void;

/**
 * One kind of weather system and its birth schedule: `perSlot` candidates per slot of
 * `slotS` seconds, each born with `birthChance` and living `lifeH` hours.
 */
interface SystemKind {
  readonly id: number;
  readonly slotS: number;
  readonly perSlot: number;
  readonly lifeH: readonly [number, number];
  readonly birthChance: (birthS: number) => number;
  readonly build: SystemBuilder;
}

/** Chance that a convective candidate is born at `epochS`: afternoon/evening peak over CONUS. */
function convectiveBirthChance(epochS: number): number {
  const hourUtc = (epochS / HOUR) % 24;
  return 0.7 + 0.25 * Math.cos((2 * Math.PI * (hourUtc - 23.5)) / 24);
}

const KINDS: readonly SystemKind[] = [
  {
    id: 1,
    slotS: 900,
    perSlot: 3,
    lifeH: [1.5, 5],
    birthChance: convectiveBirthChance,
    build: convectiveCluster,
  },
  { id: 2, slotS: 5400, perSlot: 2, lifeH: [6, 14], birthChance: () => 0.75, build: frontalBand },
  { id: 3, slotS: 3 * HOUR, perSlot: 1, lifeH: [8, 16], birthChance: () => 0.8, build: rainShield },
  {
    id: 4,
    slotS: HOUR,
    perSlot: 1,
    lifeH: [3, 7],
    birthChance: (s) => convectiveBirthChance(s) - 0.1,
    build: showerField,
  },
];

/**
 * Every echo of the simulated weather at `epochS` (epoch seconds) for `seed`. Pure: a
 * function of its arguments only, so frames can be rendered in any order, on any thread.
 */
export function echoesAt(seed: number, epochS: number): Echo[] {
  const out: Echo[] = [];
  for (const kind of KINDS) {
    const first = Math.floor((epochS - kind.lifeH[1] * HOUR) / kind.slotS) - 1;
    const last = Math.floor(epochS / kind.slotS);
    for (let slot = first; slot <= last; slot++) {
      for (let j = 0; j < kind.perSlot; j++) {
        const rnd = createUniformSequence(hashInts(seed, kind.id, slot, j));
        const birthS = (slot + rnd()) * kind.slotS;
        const born = rnd() < kind.birthChance(birthS);
        const lifeS = lerp(kind.lifeH[0], kind.lifeH[1], rnd()) * HOUR;
        const ageS = epochS - birthS;
        if (born && ageS > 0 && ageS < lifeS) kind.build(rnd, ageS, lifeS, epochS, out);
      }
    }
  }
  return out;
}
