import {
  CrawlerError,
  checkPassword,
  checkRole,
  checkUserName,
  Greenfinger,
  type PublicUser,
  type UserRole,
} from '@greenfinger/core';
import type { Command } from 'commander';
import { commandLogger, EXIT, type Io, reportError } from '../io.js';
import { PromptInterrupted, readPassword } from '../read-password.js';
import { table } from './versions.js';

interface UserOptions {
  data?: string;
  json?: boolean;
  role?: string;
  passwordStdin?: boolean;
}

/** Open a Greenfinger on --data, run `work`, report a failure in one line; the exit code. */
async function withUsers(opts: UserOptions, io: Io, work: (gf: Greenfinger) => Promise<number>): Promise<number> {
  let gf: Greenfinger | undefined;
  try {
    gf = await Greenfinger.open({
      settings: { dataStore: opts.data },
      log: commandLogger(opts.data, { toFile: false }),
    });
    return await work(gf);
  } catch (err) {
    if (err instanceof PromptInterrupted) {
      io.err('greenfinger: interrupted, nothing changed\n');
      return EXIT.interrupted;
    }
    return reportError(io, err);
  } finally {
    await gf?.close();
  }
}

/** The password, asked for (or read) and checked before the database opens. */
async function passwordFor(opts: UserOptions, usage: string): Promise<string> {
  return checkPassword(await readPassword({ fromStdin: Boolean(opts.passwordStdin), usage }));
}

function noSuchUser(name: string): CrawlerError {
  return new CrawlerError('NOT_FOUND', `no user "${name}"`, { fix: 'list them with greenfinger user list' });
}

function common(command: Command, json: string): Command {
  return command
    .option('--data <dir>', 'data root (default ./data or GF_DATA_STORE)')
    .option('--json', `print exactly one JSON document: ${json}`);
}

function done(io: Io, opts: UserOptions, user: PublicUser, line: string): number {
  io.out(opts.json ? `${JSON.stringify(user)}\n` : `${line}\n`);
  return EXIT.ok;
}

/** `user add|passwd|role|delete|list`: who may sign in to the REST API. */
export function userCommand(program: Command, io: Io, setCode: (code: number) => void): void {
  const user = program
    .command('user')
    .description('The people who may sign in to the REST API (greenfinger serve): add, passwd, role, delete, list.')
    .addHelpText(
      'after',
      '\nThere is no default user: add the first one with --role admin. An admin may change things; support (the\n' +
        'default) may read but not change anything. Passwords are kept as scrypt hashes only. Without\n' +
        '--password-stdin the password is asked for twice on the terminal, not echoed.\n\n' +
        'Examples:\n  greenfinger user add ada --role admin\n' +
        '  printf \'%s\\n\' "$PASSWORD" | greenfinger user add ci-bot --password-stdin\n' +
        '  greenfinger user list --json\n  greenfinger user passwd ada\n  greenfinger user role ci-bot admin\n' +
        '  greenfinger user delete ci-bot',
    );

  common(
    user
      .command('add')
      .description('Add a user who may sign in; the password is asked for (or read from stdin).')
      .argument('<name>', '1 to 64 letters, digits and . _ @ - starting with a letter or digit')
      .option('--role <role>', 'admin or support', 'support')
      .option('--password-stdin', 'read the password from the first line of stdin'),
    '{name, role, createdAt, updatedAt}',
  )
    .addHelpText(
      'after',
      '\nExamples:\n  greenfinger user add ada --role admin\n' +
        '  printf \'%s\\n\' "$PASSWORD" | greenfinger user add ci-bot --password-stdin --json',
    )
    .action(async (name: string, opts: UserOptions) =>
      setCode(
        await withUsers(opts, io, async (gf) => {
          checkUserName(name);
          const role = checkRole(opts.role ?? 'support');
          const password = await passwordFor(opts, `user add ${name}`);
          const added = await gf.users.add(name, password, role);
          return done(io, opts, added, `added user "${added.name}" (${added.role})`);
        }),
      ),
    );

  common(
    user
      .command('passwd')
      .description("Change a user's password; tokens already issued stay valid until they expire.")
      .argument('<name>', 'the user')
      .option('--password-stdin', 'read the new password from the first line of stdin'),
    '{name, role, createdAt, updatedAt}',
  )
    .addHelpText(
      'after',
      '\nExamples:\n  greenfinger user passwd ada\n  printf \'%s\\n\' "$NEW" | greenfinger user passwd ada --password-stdin',
    )
    .action(async (name: string, opts: UserOptions) =>
      setCode(
        await withUsers(opts, io, async (gf) => {
          if (!(await gf.users.get(name))) throw noSuchUser(name);
          const changed = await gf.users.passwd(name, await passwordFor(opts, `user passwd ${name}`));
          return done(io, opts, changed, `changed the password of "${changed.name}"`);
        }),
      ),
    );

  common(
    user
      .command('role')
      .description("Change a user's role. The last admin cannot be demoted while other users exist.")
      .argument('<name>', 'the user')
      .argument('<role>', 'admin or support'),
    '{name, role, createdAt, updatedAt}',
  )
    .addHelpText(
      'after',
      '\nExamples:\n  greenfinger user role ci-bot admin\n  greenfinger user role ada support --json',
    )
    .action(async (name: string, role: string, opts: UserOptions) =>
      setCode(
        await withUsers(opts, io, async (gf) => {
          const changed = await gf.users.setRole(name, checkRole(role) as UserRole);
          return done(io, opts, changed, `"${changed.name}" is now ${changed.role}`);
        }),
      ),
    );

  common(
    user
      .command('delete')
      .description('Delete a user. The last admin cannot be deleted while other users exist.')
      .argument('<name>', 'the user'),
    '{deleted: name}',
  )
    .addHelpText('after', '\nExamples:\n  greenfinger user delete ci-bot\n  greenfinger user delete ci-bot --json')
    .action(async (name: string, opts: UserOptions) =>
      setCode(
        await withUsers(opts, io, async (gf) => {
          if (!(await gf.users.delete(name))) throw noSuchUser(name);
          io.out(opts.json ? `${JSON.stringify({ deleted: name })}\n` : `deleted user "${name}"\n`);
          return EXIT.ok;
        }),
      ),
    );

  common(
    user.command('list').description('List the users: name, role, when added and last changed (never a password).'),
    '[{name, role, createdAt, updatedAt}]',
  )
    .addHelpText('after', '\nExamples:\n  greenfinger user list\n  greenfinger user list --json')
    .action(async (opts: UserOptions) =>
      setCode(
        await withUsers(opts, io, async (gf) => {
          const users = await gf.users.list();
          if (opts.json) io.out(`${JSON.stringify(users)}\n`);
          else if (users.length === 0) io.out('no users yet — add one with: greenfinger user add NAME --role admin\n');
          else
            io.out(
              table([
                ['name', 'role', 'created', 'updated'],
                ...users.map((u) => [u.name, u.role, u.createdAt, u.updatedAt]),
              ]),
            );
          return EXIT.ok;
        }),
      ),
    );
}
