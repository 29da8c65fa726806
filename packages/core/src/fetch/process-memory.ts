import { readFileSync } from 'node:fs';

/**
 * Proportional set size of a process in KiB (Linux: /proc/<pid>/smaps_rollup; shared pages are divided among the
 * processes sharing them, so a sum over processes counts each page once). Falls back to VmRSS; 0 when the process
 * is gone or cannot be read.
 */
export function pssKb(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    if (m) return Number(m[1]);
  } catch {
    // not readable: try the resident size
  }
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}
