import { readFileSync } from 'node:fs';

/**
 * What else the host did during a phase, from /proc (Linux): CPU time stolen by the
 * hypervisor for other guests, and CPU time of processes other than the bench and its
 * (already reaped) server children. Either makes the numbers say more about the host.
 */

interface Ticks {
  readonly total: number;
  readonly busy: number;
  readonly steal: number;
  /** This process plus its reaped children. */
  readonly ours: number;
}

function readTicks(): Ticks | undefined {
  try {
    // cpu  user nice system idle iowait irq softirq steal (guest time is inside user)
    const cpu = (readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '').trim().split(/\s+/).slice(1, 9).map(Number);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = cpu;
    // /proc/self/stat after the ")" of the name: fields 14-17 are utime stime cutime cstime.
    const self = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ').slice(11, 15).map(Number) ?? [];
    return {
      total: user + nice + system + idle + iowait + irq + softirq + steal,
      busy: user + nice + system + irq + softirq,
      steal,
      ours: self.reduce((sum, t) => sum + t, 0),
    };
  } catch {
    return undefined;
  }
}

export interface HostLoad {
  /** Percent of all CPU time the hypervisor gave to other guests. */
  readonly stealPercent: number;
  /** Percent of all CPU time used by processes other than the bench and its servers. */
  readonly otherPercent: number;
}

export interface WithHostLoad<T> {
  readonly value: T;
  /** Undefined where /proc is not available. */
  readonly host: HostLoad | undefined;
}

/** Runs `work`, which must reap any child it starts, and reports the host's other load meanwhile. */
export async function measuringHostLoad<T>(work: () => Promise<T>): Promise<WithHostLoad<T>> {
  const before = readTicks();
  const value = await work();
  const after = readTicks();
  if (!before || !after || after.total === before.total) return { value, host: undefined };
  const percent = (ticks: number) => Math.max(0, (100 * ticks) / (after.total - before.total));
  return {
    value,
    host: {
      stealPercent: percent(after.steal - before.steal),
      otherPercent: percent(after.busy - before.busy - (after.ours - before.ours)),
    },
  };
}
