import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
export const bin = join(repoRoot, 'packages/shell/dist/bin.js');

/** A `greenfinger …` child process: its stderr kept, its exit awaited. */
export interface Proc {
  name: string;
  child: ChildProcess;
  stderr(): string;
  stdout(): string;
  exited: Promise<number | null>;
}

/** Start `greenfinger ARGS` (the built CLI) with `env`; stdout and stderr are kept. */
export function startProc(name: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Proc {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`pnpm run build\` first`);
  const stdin = input === undefined ? 'ignore' : 'pipe';
  const child = spawn(process.execPath, [bin, ...args], { cwd: repoRoot, env, stdio: [stdin, 'pipe', 'pipe'] });
  if (input !== undefined) child.stdin?.end(input);
  let out = '';
  let err = '';
  child.stdout?.on('data', (b: Buffer) => {
    out += b.toString();
  });
  child.stderr?.on('data', (b: Buffer) => {
    err += b.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { name, child, stderr: () => err, stdout: () => out, exited };
}

/** Run `greenfinger ARGS` to its end (at most `timeoutMs`), `input` on its stdin: exit code, stdout, stderr. */
export async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = startProc('cli', args, env, input);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  const code = await p.exited;
  clearTimeout(timer);
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

/** SIGTERM every process still running, wait (at most 20 s), then SIGKILL what is left. */
export async function stopAll(procs: Proc[]): Promise<void> {
  const running = (p: Proc) => p.child.exitCode === null && p.child.signalCode === null;
  for (const p of procs) if (running(p)) p.child.kill('SIGTERM');
  await Promise.race([Promise.all(procs.map((p) => p.exited)), new Promise((r) => setTimeout(r, 20_000))]);
  for (const p of procs) if (running(p)) p.child.kill('SIGKILL');
}
