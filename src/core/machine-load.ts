/**
 * What this machine gives a process: the CPU its reaped children used (the sandbox's workers and
 * the processes they started count once they have been waited for) and how busy the machine's
 * cores are, from /proc. Elsewhere than Linux both read as zero (estimates then assume a free
 * machine and say so).
 */
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';

/** Linux reports /proc times in clock ticks of 1/100 s (USER_HZ), whatever the kernel's own HZ. */
const TICKS = 100;

/** CPU seconds of this process's reaped children (user + system; /proc/self/stat cutime + cstime). */
export function childrenCpuSeconds(): number {
  try {
    const f = readFileSync('/proc/self/stat', 'utf8');
    const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / TICKS;
  } catch {
    return 0;
  }
}

/** CPU seconds of this process and its reaped children. */
export function treeCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6 + childrenCpuSeconds();
}

/** CPU seconds every core of the machine has been busy since boot (not idle, not waiting on I/O), or null. */
export function machineBusySeconds(): number | null {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
    return (user + nice + system + irq + softirq + steal) / TICKS;
  } catch {
    return null;
  }
}

/** A window over which this process measured its own CPU and the machine's. */
export interface LoadWindow {
  /** Wall seconds of the window. */
  readonly wallSeconds: number;
  /** CPU seconds of this process and its reaped children in the window. */
  readonly ownCpuSeconds: number;
  /** The part of `ownCpuSeconds` its reaped children took (the code sandbox's processes). */
  readonly childrenCpuSeconds: number;
  /** Cores the rest of the machine kept busy on average in the window (0 when unknown). */
  readonly othersCores: number;
  /** The machine's cores. */
  readonly cores: number;
}

/** Start measuring; the function returned ends the window. */
export function measureLoad(now: () => number = () => performance.now()): () => LoadWindow {
  const t0 = now();
  const own0 = treeCpuSeconds();
  const children0 = childrenCpuSeconds();
  const busy0 = machineBusySeconds();
  return () => {
    const wallSeconds = (now() - t0) / 1000;
    const ownCpuSeconds = treeCpuSeconds() - own0;
    const busy1 = machineBusySeconds();
    const others = busy0 === null || busy1 === null || wallSeconds <= 0 ? 0 : Math.max(0, (busy1 - busy0 - ownCpuSeconds) / wallSeconds);
    return { wallSeconds, ownCpuSeconds, childrenCpuSeconds: childrenCpuSeconds() - children0, othersCores: others, cores: availableParallelism() };
  };
}
