export type * from './frontier.js';
export { LevelFrontier, type LevelFrontierOptions } from './level-frontier.js';
export { MemoryFrontier } from './memory-frontier.js';
