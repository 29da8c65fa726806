import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@greenfinger/core';
import { ClusterClient } from '../../src/cluster-client.js';
import { testRedisUrl, until } from './redis.js';

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

/**
 * The environment of a cluster e2e's processes: the test Redis, one extraction worker, warnings only, and each
 * member's own SQLite (`DATABASE_URL` empty) unless `extra` names a database.
 */
export function clusterEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GF_REDIS_URL: testRedisUrl,
    DATABASE_URL: '',
    GF_WORKERS: '1',
    GF_LOG_LEVEL: 'warn',
    ...extra,
  };
}

/**
 * A member process, `greenfinger node --cluster CLUSTER --node-name NAME --verbose`, on the data root `<root>/<name>`,
 * with a User-Agent of its own (`greenfinger-e2e/<name>`: the corpus's access log tells the members apart).
 */
export function startNode(cluster: string, root: string, name: string, env: NodeJS.ProcessEnv): Proc {
  return startProc(name, ['node', '--cluster', cluster, '--data', join(root, name), '--node-name', name, '--verbose'], {
    ...env,
    GF_USER_AGENT: `greenfinger-e2e/${name}`,
  });
}

/** Wait (at most `timeoutMs`) until `cluster` lists `count` members and one of them leads. */
export async function untilMembers(cluster: string, count: number, timeoutMs = 60_000): Promise<void> {
  const client = await ClusterClient.open({ cluster, redisUrl: testRedisUrl, log: silentLogger() });
  try {
    await until(
      `${count} members, one leading`,
      async () => {
        const s = await client.status();
        return s.members.length === count && s.leader !== null;
      },
      timeoutMs,
    );
  } finally {
    await client.close();
  }
}

/** `greenfinger ARGS` to its end (at most `timeoutMs`): exit code, stdout as JSON (undefined if it is not), stderr. */
export async function runJson<T>(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 300_000,
): Promise<{ code: number | null; json: T | undefined; stderr: string }> {
  const { code, stdout, stderr } = await runCli(args, env, timeoutMs);
  let json: T | undefined;
  try {
    json = JSON.parse(stdout) as T;
  } catch {
    json = undefined;
  }
  return { code, json, stderr: json === undefined ? `${stderr}${stdout}` : stderr };
}
