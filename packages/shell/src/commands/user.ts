import {
  CrawlerError,
  checkPassword,
  checkRole,
  checkUserName,
  type Greenfinger,
  type PublicUser,
  type UserRole,
} from '@greenfinger/core/internal';
import {
  type CommandContext,
  type CommandSpec,
  defineCommand,
  type GroupSpec,
  type OptionSpec,
} from '../command-spec.js';
import { EXIT, type Io } from '../io.js';
import { PromptInterrupted, readPassword } from '../read-password.js';
import { writeToLeader } from './catalog.js';
import { dataOption, jsonOption } from './options.js';
import { table } from './versions.js';

interface UserOptions {
  json?: boolean;
  role?: string;
  passwordStdin?: boolean;
}

/** Run `work` on the Greenfinger; Ctrl-C at the password prompt is exit 130 with nothing changed. */
async function withUsers(ctx: CommandContext, work: (gf: Greenfinger) => Promise<number>): Promise<number> {
  const gf = await ctx.gf();
  try {
    return await work(gf);
  } catch (err) {
    if (err instanceof PromptInterrupted) {
      ctx.io.err('greenfinger: interrupted, nothing changed\n');
      return EXIT.interrupted;
    }
    throw err;
  }
}

/** The password, asked for (or read) and checked before the database opens. */
async function passwordFor(opts: UserOptions, usage: string): Promise<string> {
  return checkPassword(await readPassword({ fromStdin: Boolean(opts.passwordStdin), usage }));
}

function noSuchUser(name: string): CrawlerError {
  return new CrawlerError('NOT_FOUND', `no user "${name}"`, { fix: 'list them with greenfinger user list' });
}

function common(json: string): OptionSpec[] {
  return [dataOption(), jsonOption(`print exactly one JSON document: ${json}`)];
}

function done(io: Io, opts: UserOptions, user: PublicUser, line: string): number {
  io.out(opts.json ? `${JSON.stringify(user)}\n` : `${line}\n`);
  return EXIT.ok;
}

/** `user …` on the one-line CLI. */
export const USER_GROUP: GroupSpec = {
  name: 'user',
  summary: 'The people who may sign in to the REST API (greenfinger serve): add, passwd, role, delete, list.',
  details:
    'There is no default user: add the first one with --role admin. An admin may change things; support (the\n' +
    'default) may read but not change anything. Passwords are kept as scrypt hashes only. Without\n' +
    '--password-stdin the password is asked for twice on the terminal, not echoed.',
  examples: [
    'greenfinger user add ada --role admin',
    'printf \'%s\\n\' "$PASSWORD" | greenfinger user add ci-bot --password-stdin',
    'greenfinger user list --json',
    'greenfinger user passwd ada',
    'greenfinger user role ci-bot admin',
    'greenfinger user delete ci-bot',
  ],
};

/** `user add|passwd|role|delete|list`: who may sign in to the REST API (the one-line CLI only). */
export const USER_COMMANDS: CommandSpec[] = [
  defineCommand<UserOptions>({
    cli: 'user add',
    summary: 'Add a user who may sign in; the password is asked for (or read from stdin).',
    args: [{ name: '<name>', description: '1 to 64 letters, digits and . _ @ - starting with a letter or digit' }],
    options: [
      { flags: '--role <role>', description: 'admin or support', default: 'support' },
      { flags: '--password-stdin', description: 'read the password from the first line of stdin' },
      ...common('{name, role, createdAt, updatedAt}'),
      writeToLeader(),
    ],
    examples: [
      'greenfinger user add ada --role admin',
      'printf \'%s\\n\' "$PASSWORD" | greenfinger user add ci-bot --password-stdin --json',
    ],
    run: (ctx, [name = ''], opts) =>
      withUsers(ctx, async (gf) => {
        checkUserName(name);
        const role = checkRole(opts.role ?? 'support');
        const password = await passwordFor(opts, `user add ${name}`);
        const added = await gf.users.add(name, password, role);
        return done(ctx.io, opts, added, `added user "${added.name}" (${added.role})`);
      }),
  }),
  defineCommand<UserOptions>({
    cli: 'user passwd',
    summary: "Change a user's password; tokens already issued stay valid until they expire.",
    args: [{ name: '<name>', description: 'the user' }],
    options: [
      { flags: '--password-stdin', description: 'read the new password from the first line of stdin' },
      ...common('{name, role, createdAt, updatedAt}'),
      writeToLeader(),
    ],
    examples: ['greenfinger user passwd ada', 'printf \'%s\\n\' "$NEW" | greenfinger user passwd ada --password-stdin'],
    run: (ctx, [name = ''], opts) =>
      withUsers(ctx, async (gf) => {
        if (!(await gf.users.get(name))) throw noSuchUser(name);
        const changed = await gf.users.passwd(name, await passwordFor(opts, `user passwd ${name}`));
        return done(ctx.io, opts, changed, `changed the password of "${changed.name}"`);
      }),
  }),
  defineCommand<UserOptions>({
    cli: 'user role',
    summary: "Change a user's role. The last admin cannot be demoted while other users exist.",
    args: [
      { name: '<name>', description: 'the user' },
      { name: '<role>', description: 'admin or support' },
    ],
    options: [...common('{name, role, createdAt, updatedAt}'), writeToLeader()],
    examples: ['greenfinger user role ci-bot admin', 'greenfinger user role ada support --json'],
    run: (ctx, [name = '', role = ''], opts) =>
      withUsers(ctx, async (gf) => {
        const changed = await gf.users.setRole(name, checkRole(role) as UserRole);
        return done(ctx.io, opts, changed, `"${changed.name}" is now ${changed.role}`);
      }),
  }),
  defineCommand<UserOptions>({
    cli: 'user delete',
    summary: 'Delete a user. The last admin cannot be deleted while other users exist.',
    args: [{ name: '<name>', description: 'the user' }],
    options: [...common('{deleted: name}'), writeToLeader()],
    examples: ['greenfinger user delete ci-bot', 'greenfinger user delete ci-bot --json'],
    run: (ctx, [name = ''], opts) =>
      withUsers(ctx, async (gf) => {
        if (!(await gf.users.delete(name))) throw noSuchUser(name);
        ctx.io.out(opts.json ? `${JSON.stringify({ deleted: name })}\n` : `deleted user "${name}"\n`);
        return EXIT.ok;
      }),
  }),
  defineCommand<UserOptions>({
    cli: 'user list',
    summary: 'List the users: name, role, when added and last changed (never a password).',
    options: common('[{name, role, createdAt, updatedAt}]'),
    examples: ['greenfinger user list', 'greenfinger user list --json'],
    run: (ctx, _args, opts) =>
      withUsers(ctx, async (gf) => {
        const users = await gf.users.list();
        if (opts.json) ctx.io.out(`${JSON.stringify(users)}\n`);
        else if (users.length === 0)
          ctx.io.out('no users yet — add one with: greenfinger user add NAME --role admin\n');
        else
          ctx.io.out(
            table([
              ['name', 'role', 'created', 'updated'],
              ...users.map((u) => [u.name, u.role, u.createdAt, u.updatedAt]),
            ]),
          );
        return EXIT.ok;
      }),
  }),
];
