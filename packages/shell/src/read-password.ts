import { CrawlerError } from '@greenfinger/core';

/** The person pressed Ctrl-C at a password prompt. */
export class PromptInterrupted extends Error {
  constructor() {
    super('interrupted at the password prompt');
    this.name = 'PromptInterrupted';
  }
}

export interface ReadPasswordOptions {
  /** Read the first line of stdin instead of asking. */
  fromStdin: boolean;
  /** The verb, for the hint when stdin is not a terminal, e.g. `user add ada`. */
  usage: string;
  /** @default process.stdin */
  stdin?: NodeJS.ReadStream;
  /** Where the prompts go (not stdout, which --json keeps for its one document). @default process.stderr */
  prompts?: NodeJS.WritableStream;
}

/**
 * The password: the first line of stdin with `--password-stdin` (its newline and CR stripped), else typed twice at
 * a terminal without echo. Not on a terminal and without `--password-stdin`, one line saying to pass it.
 * @throws CrawlerError BAD_INPUT; PromptInterrupted on Ctrl-C
 */
export async function readPassword(options: ReadPasswordOptions): Promise<string> {
  const stdin = options.stdin ?? process.stdin;
  if (options.fromStdin) return firstLine(stdin, options.usage);
  if (!stdin.isTTY) {
    throw new CrawlerError('BAD_INPUT', 'no password: stdin is not a terminal, so it cannot be asked for', {
      fix: `pass --password-stdin and pipe it in, e.g. printf '%s\\n' "$PASSWORD" | greenfinger ${options.usage} --password-stdin`,
    });
  }
  const prompts = options.prompts ?? process.stderr;
  const first = await askHidden(stdin, prompts, 'Password: ');
  const again = await askHidden(stdin, prompts, 'Again: ');
  if (first !== again) {
    throw new CrawlerError('BAD_INPUT', 'the two passwords typed differ', {
      fix: 'run the command again and type the same password twice',
    });
  }
  return first;
}

async function firstLine(stdin: NodeJS.ReadStream, usage: string): Promise<string> {
  stdin.setEncoding('utf8');
  let text = '';
  let received = false;
  for await (const chunk of stdin) {
    received = true;
    text += chunk as string;
    const end = text.indexOf('\n');
    if (end >= 0) {
      text = text.slice(0, end);
      break;
    }
  }
  if (!received) {
    throw new CrawlerError('BAD_INPUT', '--password-stdin: stdin is empty', {
      fix: `pipe the password in, e.g. printf '%s\\n' "$PASSWORD" | greenfinger ${usage} --password-stdin`,
    });
  }
  return text.replace(/\r$/, '');
}

/** One line typed in raw mode, nothing echoed; backspace works, Ctrl-C rejects, Enter or Ctrl-D ends it. */
function askHidden(stdin: NodeJS.ReadStream, prompts: NodeJS.WritableStream, prompt: string): Promise<string> {
  prompts.write(prompt);
  const wasRaw = stdin.isRaw;
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (err?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(wasRaw);
      stdin.pause();
      prompts.write('\n');
      if (err) reject(err);
      else resolve(typed);
    };
    const onData = (data: string) => {
      for (const ch of data) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u0003') return finish(new PromptInterrupted());
        if (ch === '\u007f' || ch === '\b') typed = [...typed].slice(0, -1).join('');
        else if (ch >= ' ') typed += ch;
      }
    };
    stdin.on('data', onData);
  });
}
