// A crawl whose vector phase never ends: run as a child process (`node --import tsx --conditions @greenfinger/source
// vector-phase-child.ts <data dir> <site origin> <node settings as JSON>`) so a test can kill -9 it while its vectors
// are being written. The embedding model (the tiny test model) lets one batch through, then holds every other one.
import { fileURLToPath } from 'node:url';
import { createEmbeddingClient, Greenfinger } from '@greenfinger/core/internal';
import { GatedEmbeddingClient } from './gated-embedding.js';

const [dataStore, origin, json] = process.argv.slice(2);
if (dataStore && origin && json) {
  const modelDir = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
  const tiny = await createEmbeddingClient({ modelDir, textModel: 'tiny-e5' }, { inProcess: true });
  const gate = new GatedEmbeddingClient(tiny);
  gate.hold();
  gate.allow(1);
  const gf = await Greenfinger.open({
    settings: { ...JSON.parse(json), dataStore },
    components: { embeddingClient: gate },
  });
  await gf.crawler.crawl({
    url: origin,
    startUrl: `${origin}/`,
    settings: { intervalMs: 0, threads: 4, hostConcurrency: 4 },
  });
  // Never reached while the gate holds: the test kills this process first.
  await gf.close();
}
