const rate = { type: 'number', nullable: true };
const int = { type: 'integer' };

/**
 * `JobView.hosts` as the description writes it (answer-shapes.ts): the busy hosts' pace of a running crawl
 * (core's `HostRate`, docs/crawling.md "Pace").
 */
export const HOST_RATES_SHAPE: Record<string, unknown> = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      host: { type: 'string' },
      ratePerSecond: rate,
      settingPerSecond: rate,
      inFlight: int,
      queued: int,
      pausedForMs: int,
    },
    required: ['host', 'ratePerSecond', 'settingPerSecond', 'inFlight', 'queued', 'pausedForMs'],
  },
  description:
    "The busy hosts' pace now, busiest first (at most 10; empty once ended): request starts per second allowed " +
    'now and by the settings (null: unlimited), requests in flight and waiting, the pause left after a ' +
    'Retry-After (docs/crawling.md).',
};
