import { LuaScript } from '../plumbing/lua-script.js';

/*
 * The crawl channel's accounting, done atomically in Redis so that completion can be read from it at any moment:
 * every url in a stream, or being handled by a member, is counted in some member's `d` (dispatched) and not yet in
 * anyone's `h` (handled), so Σd = Σh holds exactly when nothing is left anywhere. A url's children are counted in the
 * same script that counts the url handled, and an entry counts as handled only by the call that deletes it, so a
 * page committed twice (a member thought dead that was only slow) is counted once.
 */

/**
 * Join a run: the member set, the stream and its group, and a start token (d + 1) that is settled (h + 1) once the
 * member's seeds are committed, so the run cannot look finished before a member has seeded. Refused (0) once the
 * run has ended. KEYS: members, counters, ending, own stream. ARGV: node.
 */
export const JOIN = new LuaScript(`
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
if redis.call('SADD', KEYS[1], ARGV[1]) == 1 then
  redis.call('HINCRBY', KEYS[2], ARGV[1] .. '|d', 1)
end
redis.pcall('XGROUP', 'CREATE', KEYS[4], 'g', '0', 'MKSTREAM')
return 1`);

/**
 * One commit of a member: for each url offered, add it to the run's seen set and, when it was not there, to its
 * owner's stream (d + 1); acknowledge and delete the member's committed entries (h + their number); settle the start
 * token with the first commit (the seeds). Returns 1/0 per url: dispatched for the first time in the run.
 * KEYS: counters, seen bucket × n, owner stream × n, own stream.
 * ARGV: node, n, a (acks), seeded (1 = settle the start token), (member, message) × n, id × a.
 */
export const DISPATCH = new LuaScript(`
local node = ARGV[1]
local n = tonumber(ARGV[2])
local a = tonumber(ARGV[3])
local added = {}
local d = 0
for i = 1, n do
  if redis.call('SADD', KEYS[1 + i], ARGV[3 + 2 * i]) == 1 then
    redis.call('XADD', KEYS[1 + n + i], '*', 'm', ARGV[4 + 2 * i])
    added[i] = 1
    d = d + 1
  else
    added[i] = 0
  end
end
local h = 0
if a > 0 then
  local own = KEYS[2 + 2 * n]
  local ids = {}
  for j = 1, a do ids[j] = ARGV[4 + 2 * n + j] end
  redis.call('XACK', own, 'g', unpack(ids))
  h = redis.call('XDEL', own, unpack(ids))
end
if ARGV[4] == '1' and redis.call('HSETNX', KEYS[1], node .. '|seeded', 1) == 1 then h = h + 1 end
if d > 0 then redis.call('HINCRBY', KEYS[1], node .. '|d', d) end
if h > 0 then redis.call('HINCRBY', KEYS[1], node .. '|h', h) end
return added`);

/**
 * Re-home entries of a dead member's stream: each one deleted from it is appended to its new owner's stream, in the
 * same script, so an entry moves once however many members try. Counters do not change: the entry was counted
 * dispatched when first sent and is counted handled by whoever commits it. KEYS: dead stream, target × n.
 * ARGV: (id, message) × n. Returns how many moved.
 */
export const MOVE = new LuaScript(`
local moved = 0
for i = 1, #ARGV / 2 do
  local id = ARGV[2 * i - 1]
  redis.call('XACK', KEYS[1], 'g', id)
  if redis.call('XDEL', KEYS[1], id) == 1 then
    redis.call('XADD', KEYS[1 + i], '*', 'm', ARGV[2 * i])
    moved = moved + 1
  end
end
return moved`);

/**
 * Settle a dead member's start token when it died before committing its seeds. KEYS: counters. ARGV: node.
 * Returns 1 when it settled it.
 */
export const SETTLE_TOKEN = new LuaScript(`
if redis.call('HSETNX', KEYS[1], ARGV[1] .. '|seeded', 1) == 1 then
  redis.call('HINCRBY', KEYS[1], ARGV[1] .. '|h', 1)
  return 1
end
return 0`);

/**
 * The completion state in one atomic read: the ending (if written), Σd, Σh, the entries in every run member's
 * stream, and the members. KEYS: counters, members, ending. ARGV: stream key prefix (a member's name is appended).
 */
export const CHECK = new LuaScript(`
local ending = redis.call('GET', KEYS[3])
local vals = redis.call('HGETALL', KEYS[1])
local d = 0
local h = 0
for i = 1, #vals, 2 do
  local tail = string.sub(vals[i], -2)
  if tail == '|d' then d = d + tonumber(vals[i + 1]) elseif tail == '|h' then h = h + tonumber(vals[i + 1]) end
end
local len = 0
local members = redis.call('SMEMBERS', KEYS[2])
for _, m in ipairs(members) do len = len + redis.call('XLEN', ARGV[1] .. m) end
return {ending or '', d, h, len, #members}`);

/** What CHECK read. */
export interface RunState {
  ending: string | undefined;
  dispatched: number;
  handled: number;
  /** Entries in the streams of every run member (delivered or not). */
  streamed: number;
  members: number;
}

export function runState(reply: unknown): RunState {
  const r = reply as [string, number, number, number, number];
  return {
    ending: r[0] ? String(r[0]) : undefined,
    dispatched: Number(r[1]),
    handled: Number(r[2]),
    streamed: Number(r[3]),
    members: Number(r[4]),
  };
}
