import { NEXT, type Stage } from '../page.js';

/** Image extraction (seed 002): the page's pictures, fetched once per run, stored once per version by hash. */
export const images: Stage = {
  name: 'images',
  run: async (page, { deps: d, clock, images: pictures, counters }) => {
    if (d.catalog.settings.images) {
      page.images = await clock.time('images', pictures.forPage(page.content, page.entry.url, counters));
    }
    return NEXT;
  },
};
