import type { Logger, PageBudget } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import { LuaScript } from '../plumbing/lua-script.js';

/**
 * Take a place: 1 while the count stays within the limit; else 0, the count left as it was, and the run's ending
 * written (once, `max-pages`) in the same step, so every member ends its part as at a normal end of the run.
 */
const TAKE = new LuaScript(`
local n = redis.call('INCR', KEYS[1])
if n > tonumber(ARGV[1]) then
  redis.call('DECR', KEYS[1])
  redis.call('SET', KEYS[2], 'max-pages', 'NX')
  return 0
end
return 1`);

/**
 * The page limit of a cluster run, counted once for every member (`gf:<cluster>:run:<id>:budget`): a member takes a
 * place before it saves a page, so the members together save at most `maxPages` instead of each saving up to it
 * while the leader adds up their progress. The member refused first writes the run's ending (`max-pages`), as any
 * member that sees a limit reached does; the key expires with the run's other keys. A member killed with places
 * taken leaves them taken: the run then saves fewer pages than the limit by at most the pages it had in flight.
 */
export class RedisPageBudget implements PageBudget {
  readonly #redis: Redis;
  readonly #key: string;
  readonly #ending: string;
  readonly #maxPages: number;
  readonly #log: Logger;

  constructor(redis: Redis, run: { budget: string; ending: string }, maxPages: number, log: Logger) {
    this.#redis = redis;
    this.#key = run.budget;
    this.#ending = run.ending;
    this.#maxPages = maxPages;
    this.#log = log;
  }

  async take(): Promise<boolean> {
    return Number(await TAKE.run(this.#redis, [this.#key, this.#ending], [this.#maxPages])) === 1;
  }

  giveBack(): void {
    this.#redis.decr(this.#key).catch((err: unknown) => {
      this.#log.warn({ err }, 'a page place was not given back to the run budget; the run may save one page fewer');
    });
  }
}
