export * from './change-feeds.js';
export * from './feed-push.js';
export * from './mediawiki.js';
export * from './rss.js';
export * from './types.js';
