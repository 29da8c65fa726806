// Runs one command as a child process and measures it: wall seconds, CPU seconds (user + system, children
// included, from GNU time's wait4 rusage), peak RSS (GNU time's maxrss, cross-checked by polling VmHWM of the
// measured process and summing VmRSS over its process tree), CPU the rest of the machine used meanwhile
// (servers, other jobs: a busy machine makes a run unrepresentative), stdout and stderr.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const GNU_TIME = '/usr/bin/time';
const CLOCK_TICKS = 100;

function readProc(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Busy CPU seconds of the whole machine since boot (every field of the cpu line but idle and iowait). */
function machineBusyS() {
  const f = readProc('/proc/stat').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const busy = f.reduce((a, b) => a + b, 0) - (f[3] ?? 0) - (f[4] ?? 0);
  return busy / CLOCK_TICKS;
}

function childrenOf(pid) {
  const out = [];
  const tasks = readProc(`/proc/${pid}/task/${pid}/children`).trim();
  for (const c of tasks ? tasks.split(/\s+/) : []) out.push(Number(c));
  return out;
}

function statusKb(pid, key) {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readProc(`/proc/${pid}/status`));
  return m ? Number(m[1]) : 0;
}

function cpuTicks(pid) {
  const stat = readProc(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[11..14] = utime stime cutime cstime (stat fields 14..17)
  return fields.length > 14 ? Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]) : 0;
}

/**
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, timeoutMs?: number, pollMs?: number }} [options]
 * @returns {Promise<{ code: number | null, signal: string | null, timedOut: boolean, wallS: number, cpuS: number,
 *   userS: number, systemS: number, otherCpuS: number, peakRssMb: number, hwmPolledMb: number, treeRssPeakMb: number,
 *   stdout: string, stderr: string }>}
 */
export function measure(command, args, options = {}) {
  const { cwd, env, timeoutMs = 600_000, pollMs = 50 } = options;
  const useTime = existsSync(GNU_TIME);
  const dir = mkdtempSync(join(tmpdir(), 'gf-bench-measure-'));
  const timeFile = join(dir, 'time.txt');
  const [file, argv] = useTime ? [GNU_TIME, ['-f', '%e %U %S %M', '-o', timeFile, command, ...args]] : [command, args];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const busyAtStart = machineBusyS();
    const child = spawn(file, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const stdout = [];
    const stderr = [];
    child.stdout.on('data', (b) => stdout.push(b));
    child.stderr.on('data', (b) => stderr.push(b));
    let hwmKb = 0;
    let treeKb = 0;
    let lastTicks = 0;
    let target = useTime ? 0 : child.pid;
    const poll = () => {
      if (!target) target = childrenOf(child.pid)[0] ?? 0;
      if (!target) return;
      hwmKb = Math.max(hwmKb, statusKb(target, 'VmHWM'));
      let sum = 0;
      const stack = [target];
      for (let guard = 0; stack.length > 0 && guard < 10_000; guard++) {
        const pid = stack.pop();
        sum += statusKb(pid, 'VmRSS');
        stack.push(...childrenOf(pid));
      }
      treeKb = Math.max(treeKb, sum);
      lastTicks = Math.max(lastTicks, cpuTicks(target));
    };
    const timer = setInterval(poll, pollMs);
    let timedOut = false;
    const killer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, timeoutMs);
    child.on('error', (err) => {
      clearInterval(timer);
      clearTimeout(killer);
      rmSync(dir, { recursive: true, force: true });
      reject(err);
    });
    child.on('close', (code, signal) => {
      const wallS = (performance.now() - started) / 1000;
      const machineBusy = machineBusyS() - busyAtStart;
      clearInterval(timer);
      clearTimeout(killer);
      let userS = lastTicks / CLOCK_TICKS;
      let systemS = 0;
      let maxRssKb = 0;
      const line = existsSync(timeFile) ? readFileSync(timeFile, 'utf8').trim().split('\n').pop() : '';
      const m = /^([\d.]+) ([\d.]+) ([\d.]+) (\d+)$/.exec(line ?? '');
      if (m) {
        userS = Number(m[2]);
        systemS = Number(m[3]);
        maxRssKb = Number(m[4]);
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({
        code,
        signal,
        timedOut,
        wallS,
        cpuS: userS + systemS,
        otherCpuS: Math.max(0, machineBusy - userS - systemS),
        userS,
        systemS,
        peakRssMb: Math.max(maxRssKb, hwmKb) / 1024,
        hwmPolledMb: hwmKb / 1024,
        treeRssPeakMb: treeKb / 1024,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
  });
}

/**
 * Waits until the rest of the machine is quiet (under `thresholdCores` busy for `settleS` seconds in a row), at most
 * `maxWaitS`: other jobs on a 2-core machine would otherwise decide the result. Says whether it got quiet.
 */
export async function waitForQuiet({ maxWaitS = 60, thresholdCores = 0.3, settleS = 3 } = {}) {
  const started = performance.now();
  let last = machineBusyS();
  let quietFor = 0;
  let busy = 0;
  while ((performance.now() - started) / 1000 < maxWaitS) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = machineBusyS();
    busy = now - last;
    last = now;
    quietFor = busy < thresholdCores ? quietFor + 1 : 0;
    if (quietFor >= settleS) return { quiet: true, waitedS: (performance.now() - started) / 1000, busyCores: busy };
  }
  return { quiet: false, waitedS: (performance.now() - started) / 1000, busyCores: busy };
}
