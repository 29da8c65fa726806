import { resolve } from 'node:path';
import type { CatalogSettings } from '../config.js';
import { CrawlerError } from '../errors.js';
import { PictureImageEmbedder, type PictureImageVectorSink } from '../outputs/picture-image-embedder.js';
import type { ComponentFactory } from './component-factory.js';

/**
 * The image side of a `text+image` catalog (`contentMode`): whether its runs write image vectors, the refusal when
 * the image model is not there (before the run writes anything), and the PictureImageEmbedder of its vector layer.
 */

/** Whether settings ask for image vectors: `contentMode` `text+image` with the vector layer among the outputs. */
export function wantsImageVectors(s: Partial<Pick<CatalogSettings, 'contentMode' | 'outputs'>> | undefined): boolean {
  return s?.contentMode === 'text+image' && (s.outputs === undefined || s.outputs.includes('vector'));
}

/**
 * Refuses settings that ask for image vectors on a node without the image model (GF_IMAGE_MODEL under
 * GF_MODEL_DIR, or the `imageEmbeddingClient` component): one line naming the model, the folder and the fixes.
 * @throws CrawlerError CONFIG
 */
export function assertImageModel(f: ComponentFactory, s: Partial<CatalogSettings> | undefined): void {
  if (!wantsImageVectors(s) || f.hasImageModel()) return;
  const model = f.settings.imageModel;
  const dir = resolve(f.settings.modelDir);
  throw new CrawlerError(
    'CONFIG',
    `contentMode text+image: no image model ${model} in ${dir} (GF_MODEL_DIR, GF_IMAGE_MODEL)`,
    {
      fix: `run greenfinger models pull --image ${model} on a machine with internet, then copy its ${model}/ folder into ${dir}; or crawl with --content-mode text (contentMode: text)`,
    },
  );
}

/**
 * The image vectors of a catalog's runs (crawl and replay --layers vector; `settings` the catalog's, without
 * `outputs` when the vector layer is asked for by name): undefined unless they ask for them and the index keeps them. The model is loaded here once per process (ComponentFactory.imageEmbedding) and kept.
 * @throws CrawlerError CONFIG when the image model is not there
 */
export async function pictureImageEmbedder(
  f: ComponentFactory,
  settings: Partial<Pick<CatalogSettings, 'contentMode' | 'outputs'>>,
): Promise<PictureImageEmbedder | undefined> {
  const index = f.index();
  if (!wantsImageVectors(settings) || !index.upsertPictureImageVectors) return undefined;
  assertImageModel(f, settings);
  const client = await f.imageEmbedding();
  return new PictureImageEmbedder(client, index as PictureImageVectorSink, (path) => f.blobs.get(path), {
    log: f.log.child({ component: 'picture-image-embedder' }),
  });
}
