import { type ChildProcess, spawn, spawnSync } from 'node:child_process';

/** `greenfinger serve --port 0` started as a process, with its address read from stderr. */
export interface ServeProcess {
  process: ChildProcess;
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
}

/** Add each user with `greenfinger user add NAME --role ROLE --password-stdin`; the error says why one failed. */
export function addUsers(
  bin: string,
  env: NodeJS.ProcessEnv,
  users: ReadonlyArray<readonly [name: string, role: 'admin' | 'support']>,
  password: string,
): void {
  for (const [name, role] of users) {
    const added = spawnSync(process.execPath, [bin, 'user', 'add', name, '--role', role, '--password-stdin'], {
      env,
      input: `${password}\n`,
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (added.status !== 0) throw new Error(`user add ${name} exited ${added.status}: ${added.stderr}`);
  }
}

/** Start the server on any free port and wait (at most 60 s) for the line that names its address. */
export async function startServe(bin: string, env: NodeJS.ProcessEnv): Promise<ServeProcess> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 60_000);
    child.stderr?.on('data', () => {
      const m = /serving (http:\/\/[^\s/]+)\/v2/.exec(stderr);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${stderr}`));
    });
  });
  return { process: child, base, stderr: () => stderr };
}
