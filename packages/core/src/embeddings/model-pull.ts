import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Settings } from '../config.js';
import { CrawlerError } from '../errors.js';
import { findOnnxModel } from './transformers-embedding-client.js';
import { findImageModel, IMAGE_MODELS } from './transformers-image-embedding-client.js';

/** A model `greenfinger models pull` knows: the repository it comes from and the files of its folder. */
export interface PullableModel {
  /** `<owner>/<name>` on the model source (GF_MODEL_SOURCE). */
  repo: string;
  /** Paths inside the repository, kept as they are under `<GF_MODEL_DIR>/<model>/` (the transformers.js layout). */
  files: readonly string[];
}

/**
 * The models `models pull` downloads, by the folder name GF_TEXT_MODEL gives. multilingual-e5-small comes as the
 * transformers.js conversion (its 8-bit ONNX graph, about 118 MB; `onnx/model.onnx` beside it works the same).
 */
export const PULLABLE_MODELS: Readonly<Record<string, PullableModel>> = {
  'multilingual-e5-small': {
    repo: 'Xenova/multilingual-e5-small',
    files: ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'],
  },
};

/** What a pull did. */
export interface ModelPull {
  model: string;
  /** The model's folder. */
  dir: string;
  /** It was there already: nothing was downloaded. */
  already: boolean;
  files: Array<{ file: string; bytes: number }>;
}

export interface ModelPullOptions {
  /** Time to wait for each file's answer (headers). @default 20000 */
  answerTimeoutMs?: number;
  /** Time one file may take in all. @default 1800000 */
  fileTimeoutMs?: number;
  /**
   * Pull this image model (a name of IMAGE_MODELS: CLIP or SigLIP, for pictures like this one) instead of the text
   * model GF_TEXT_MODEL names.
   */
  imageModel?: string | undefined;
}

/** Where to place a model by hand, and how it is found: the fix of every failed pull. */
export function placeModelHint(modelDir: string, model: string): string {
  const dir = join(resolve(modelDir), model);
  return (
    `place its transformers.js folder at ${dir}/ (config.json, tokenizer.json, tokenizer_config.json and ` +
    'onnx/model.onnx or onnx/model_quantized.onnx — e.g. copied from a machine where `greenfinger models pull` worked); ' +
    'a crawl uses it as soon as that ONNX file is there (GF_MODEL_DIR, GF_TEXT_MODEL) and says so when it starts'
  );
}

/**
 * Download the text model GF_TEXT_MODEL names into GF_MODEL_DIR from GF_MODEL_SOURCE (`<source>/<repo>/resolve/main/
 * <file>`), never anywhere else. The files land in a `.partial` folder that is renamed into place once every one
 * arrived, so a failed pull leaves no half model for a crawl to load. A model already in place is left as it is.
 * @throws CrawlerError EMBEDDING in one line naming the source, what it answered, and where to place the model by hand
 */
export async function pullModel(
  settings: Pick<Settings, 'modelDir' | 'textModel' | 'modelSource'>,
  options: ModelPullOptions = {},
): Promise<ModelPull> {
  const image = options.imageModel;
  const model = image ?? settings.textModel;
  const root = resolve(settings.modelDir);
  const dir = join(root, model);
  if (image !== undefined) {
    if (!IMAGE_MODELS[image]) {
      throw new CrawlerError(
        'EMBEDDING',
        `models pull knows the image models ${Object.keys(IMAGE_MODELS).join(', ')}, not ${image}`,
        { fix: `pass one of ${Object.keys(IMAGE_MODELS).join(', ')}` },
      );
    }
    if (findImageModel(root, image)) return { model, dir, already: true, files: [] };
  } else if (findOnnxModel(root, model)) return { model, dir, already: true, files: [] };
  const known = image !== undefined ? IMAGE_MODELS[image] : PULLABLE_MODELS[model];
  if (!known) {
    throw new CrawlerError('EMBEDDING', `models pull knows ${Object.keys(PULLABLE_MODELS).join(', ')}, not ${model}`, {
      fix: `set GF_TEXT_MODEL=multilingual-e5-small, or ${placeModelHint(settings.modelDir, model)}`,
    });
  }
  const partial = `${dir}.partial`;
  await rm(partial, { recursive: true, force: true });
  const files: ModelPull['files'] = [];
  try {
    for (const file of known.files) {
      const url = `${settings.modelSource.replace(/\/+$/, '')}/${known.repo}/resolve/main/${file}`;
      const target = join(partial, file);
      await mkdir(dirname(target), { recursive: true });
      await download(url, target, options);
      files.push({ file, bytes: (await stat(target)).size });
    }
    await rm(dir, { recursive: true, force: true });
    await rename(partial, dir);
  } catch (err) {
    await rm(partial, { recursive: true, force: true }).catch(() => undefined);
    const answered = err instanceof AnsweredError;
    throw new CrawlerError(
      'EMBEDDING',
      `cannot download ${model} from ${settings.modelSource}: ${whatHappened(err)}${answered ? '' : ' (this machine seems to have no internet access)'}`,
      {
        cause: err,
        fix:
          image !== undefined
            ? `place its transformers.js folder at ${dir}/ (${known.files.join(', ')}), copied from a machine where \`greenfinger models pull --image ${image}\` worked`
            : placeModelHint(settings.modelDir, model),
      },
    );
  }
  return { model, dir, already: false, files };
}

async function download(url: string, target: string, options: ModelPullOptions): Promise<void> {
  const answer = new AbortController();
  const answerTimer = setTimeout(() => answer.abort(new Error('no answer in time')), options.answerTimeoutMs ?? 20_000);
  const whole = AbortSignal.timeout(options.fileTimeoutMs ?? 1_800_000);
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.any([answer.signal, whole]), redirect: 'follow' });
  } finally {
    clearTimeout(answerTimer);
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    throw new AnsweredError(`${url} answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`);
  }
  await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), createWriteStream(target), {
    signal: whole,
  });
}

/** The source answered, with an error status: the network works, the model is not there. */
class AnsweredError extends Error {}

/** The cause of a failed request in a few words: `getaddrinfo ENOTFOUND huggingface.co`, `connect ECONNREFUSED …`. */
function whatHappened(err: unknown): string {
  let e: unknown = err;
  let words = err instanceof Error ? err.message : String(err);
  for (let i = 0; i < 4 && e instanceof Error && e.cause !== undefined; i++) {
    e = e.cause;
    if (e instanceof Error && e.message) words = e.message;
  }
  return words.replace(/\s*\n\s*/g, ' ');
}
