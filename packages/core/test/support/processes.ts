import { readdirSync, readFileSync } from 'node:fs';

/** Proportional set size of a process, in KiB (0 when it ended or cannot be read). */
export function pssKb(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Processes descending from this one whose command is Chromium's, with their memory. */
export function chromiumProcesses(): { pid: number; pssKb: number }[] {
  const parent = new Map<number, number>();
  const comm = new Map<number, string>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(d), Number(fields[1]));
      comm.set(Number(d), stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
    } catch {
      // ended while we looked
    }
  }
  const out: { pid: number; pssKb: number }[] = [];
  for (const [pid, name] of comm) {
    if (!/chrom|headless/i.test(name)) continue;
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) {
      if (p === process.pid) {
        out.push({ pid, pssKb: pssKb(pid) });
        break;
      }
    }
  }
  return out;
}
