export * from './composite-output-channel.js';
export * from './file-output-channel.js';
export * from './index-output-channel.js';
export type * from './output-channel.js';
export * from './page-markdown.js';
export * from './vector-output-channel.js';
