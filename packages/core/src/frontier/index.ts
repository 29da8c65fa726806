export { BackQueues, type BackQueuesOptions, type TakenEntry } from './back-queues.js';
export { BiasedSelector, LANES, laneOf, QUEUE_BIAS, queueWeight } from './front-queues.js';
export type * from './frontier.js';
export { LevelFrontier, type LevelFrontierOptions } from './level-frontier.js';
export { MemoryFrontier } from './memory-frontier.js';
export * from './prioritizer.js';
