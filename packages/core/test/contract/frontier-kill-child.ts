/**
 * Child process of the "kill" durability test: fills a LevelFrontier, leases and acks some entries,
 * waits past the ack flush window, then dies by SIGKILL without closing anything.
 * Run as `node --import tsx frontier-kill-child.ts <dir>`.
 */
import { LevelFrontier } from '../../src/frontier/index.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: frontier-kill-child.ts <dir>');
const frontier = await LevelFrontier.open(dir);
const entries = Array.from({ length: 1000 }, (_, i) => ({ url: `https://example.com/p/${i}`, depth: 1 }));
for (let i = 0; i < 900; i += 300) await frontier.putAll(entries.slice(i, i + 300));
for (const entry of entries.slice(900)) await frontier.put(entry);
const leased = [];
for (let i = 0; i < 300; i++) leased.push(await frontier.poll());
for (const entry of leased.slice(0, 200)) if (entry) await frontier.ack(entry);
await new Promise((resolve) => setTimeout(resolve, 300));
process.kill(process.pid, 'SIGKILL');
