/**
 * Per-process resource figures from Linux `/proc`: peak resident memory (VmHWM, reset before
 * each scenario through `clear_refs`, with a VmRSS poll as a fallback where the reset is not
 * allowed) and CPU time (utime + stime), so each scenario reports what every process it
 * involves used, the load generator included.
 */
import fs from 'node:fs';

const CLK_TCK = 100; // USER_HZ on every Linux we run on (getconf CLK_TCK)

/** A named set of pids measured together (nginx: master and workers). */
export interface Watched {
  readonly name: string;
  /** Current pids (read again at every sample: nginx workers are children of the master). */
  pids(): number[];
}

export interface ProcFigures {
  /** Peak resident set during the window, MiB (summed over the pids). */
  readonly peakRssMiB: number;
  /** Resident set at the end of the window, MiB. */
  readonly rssMiB: number;
  /** CPU time during the window divided by its wall time (1.0 = one core busy). */
  readonly cpuCores: number;
}

function readStatus(pid: number): { rssKiB: number; hwmKiB: number } | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
    return { rssKiB: field('VmRSS'), hwmKiB: field('VmHWM') };
  } catch {
    return undefined;
  }
}

/** utime + stime of `pid` in clock ticks (1/100 s), 0 once it is gone. */
export function cpuTicks(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(rest[11]) + Number(rest[12]); // utime, stime (fields 14 and 15)
  } catch {
    return 0;
  }
}

function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Child pids of `pid` (Linux 3.5+ `children` file of the main thread). */
export function childPids(pid: number): number[] {
  try {
    return fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** A process tree (the pid and its direct children): nginx master and workers. */
export function tree(name: string, pid: number): Watched {
  return { name, pids: () => [pid, ...childPids(pid)] };
}

export function single(name: string, pid: number): Watched {
  return { name, pids: () => [pid] };
}

/**
 * Busy CPU ticks of the whole machine from /proc/stat: user, nice, system and steal (time the
 * hypervisor gave to someone else). irq and softirq are left out: on loopback they are mostly
 * the bench's own packets, not other work.
 */
function machineBusyTicks(): number {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const [, user, nice, system, , , , , steal] = line.trim().split(/\s+/).map(Number);
    return user! + nice! + system! + steal!;
  } catch {
    return NaN;
  }
}

/** What a window measured: per watched process, and CPU the machine spent on anything else. */
export interface WindowFigures {
  readonly processes: Record<string, ProcFigures>;
  /**
   * Cores busy with processes the bench did not start (other users of the machine, the
   * kernel): whole-machine busy time minus the watched processes'. Near 0 on a quiet machine.
   */
  readonly otherCores: number;
}

/** A measurement window over `watched`; `stop()` returns the figures. */
export function startWindow(watched: readonly Watched[], pollMs = 100): { stop(): WindowFigures } {
  const machineStart = machineBusyTicks();
  const started = process.hrtime.bigint();
  const startTicks = new Map<number, number>();
  const polledPeak = new Map<string, number>();
  let hwmReliable = true;
  for (const w of watched) {
    for (const pid of w.pids()) {
      startTicks.set(pid, cpuTicks(pid));
      hwmReliable = resetPeak(pid) && hwmReliable;
    }
  }
  const poll = () => {
    for (const w of watched) {
      const rss = w.pids().reduce((sum, pid) => sum + (readStatus(pid)?.rssKiB ?? 0), 0);
      polledPeak.set(w.name, Math.max(polledPeak.get(w.name) ?? 0, rss));
    }
  };
  poll();
  const timer = setInterval(poll, pollMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      poll();
      const wallS = Number(process.hrtime.bigint() - started) / 1e9;
      const machineCores = (machineBusyTicks() - machineStart) / CLK_TCK / wallS;
      const out: Record<string, ProcFigures> = {};
      for (const w of watched) {
        let hwm = 0;
        let rss = 0;
        let ticks = 0;
        for (const pid of w.pids()) {
          const s = readStatus(pid);
          hwm += s?.hwmKiB ?? 0;
          rss += s?.rssKiB ?? 0;
          ticks += cpuTicks(pid) - (startTicks.get(pid) ?? 0);
        }
        // Summed per-process peaks can exceed the true joint peak slightly; the poll cannot
        // see spikes between samples. Take the larger: a conservative peak.
        const peakKiB = Math.max(hwmReliable ? hwm : 0, polledPeak.get(w.name) ?? 0);
        out[w.name] = {
          peakRssMiB: round(peakKiB / 1024, 1),
          rssMiB: round(rss / 1024, 1),
          cpuCores: round(ticks / CLK_TCK / wallS, 2),
        };
      }
      const ours = Object.values(out).reduce((sum, f) => sum + f.cpuCores, 0);
      return { processes: out, otherCores: round(Math.max(0, machineCores - ours), 2) };
    },
  };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
