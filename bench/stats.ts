/** Small figures helpers: medians of repeated runs, rounding, and the machine a run was on. */
import { cpus, loadavg, totalmem } from 'node:os';

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export function round(value: number, digits = 0): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** `1,234` style, for tables. */
export function fmt(value: number, digits = 0): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function pct(share: number, digits = 1): string {
  return `${fmt(share * 100, digits)} %`;
}

export function machine(): string {
  const list = cpus();
  // The load average says how shared the machine was while the figures were taken.
  const [one, five] = loadavg();
  return `${list.length} cores (${list[0]?.model.trim() ?? 'unknown CPU'}), ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}; load average ${fmt(one ?? 0, 1)} / ${fmt(five ?? 0, 1)} (1 / 5 min) when written`;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
export async function processCpuMs(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return Number.NaN;
  }
}

export function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}
