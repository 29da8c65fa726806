import { IMAGE_MODELS, loadSettings, PULLABLE_MODELS, pullModel } from '@greenfinger/core/internal';
import { type CommandSpec, defineCommand, type GroupSpec } from '../command-spec.js';
import { EXIT } from '../io.js';
import { jsonOption } from './options.js';

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** `models …` on the one-line CLI. */
export const MODELS_GROUP: GroupSpec = {
  name: 'models',
  summary: 'The text model meaning search uses: pull multilingual-e5-small into GF_MODEL_DIR.',
  details:
    'Without a model under GF_MODEL_DIR a crawl embeds with the Universal Sentence Encoder lite that ships in npm\n' +
    '(English, 512-d); with multilingual-e5-small there (ONNX, transformers.js layout) it uses that one instead.',
  examples: ['greenfinger models pull', 'GF_MODEL_DIR=/srv/models greenfinger models pull --json'],
};

/** `models pull`: download GF_TEXT_MODEL into GF_MODEL_DIR, or say in one line where to place it by hand. */
export const MODELS_COMMANDS: CommandSpec[] = [
  defineCommand<{ json?: boolean; image?: string | boolean }>({
    cli: 'models pull',
    summary: `Download ${Object.keys(PULLABLE_MODELS).join(', ')} (or an image model) into GF_MODEL_DIR (needs internet access).`,
    options: [
      {
        flags: '--image [model]',
        description: `pull an image model for pictures search instead: ${Object.keys(IMAGE_MODELS).join(' or ')} (default ${Object.keys(IMAGE_MODELS)[0]})`,
      },
      jsonOption('print exactly one JSON document: {model, dir, already, files: [{file, bytes}]}'),
    ],
    details:
      'From GF_MODEL_SOURCE (default https://huggingface.co), into GF_MODEL_DIR/GF_TEXT_MODEL (default\n' +
      './models/multilingual-e5-small): config.json, tokenizer.json, tokenizer_config.json and\n' +
      'onnx/model_quantized.onnx (about 120 MB). With --image, an image model (CLIP or SigLIP: its two ONNX towers,\n' +
      'preprocessor and tokenizer) into GF_MODEL_DIR/<model>. Nothing is kept of a pull that fails. Without internet access it\n' +
      'fails in one line saying where to place the folder by hand; a crawl uses the model as soon as its\n' +
      'onnx/model.onnx or onnx/model_quantized.onnx is there, and its first line names the model it loaded.',
    examples: [
      'greenfinger models pull',
      'GF_MODEL_DIR=/srv/models greenfinger models pull --json',
      'greenfinger models pull --image clip-vit-base-patch32',
    ],
    run: async (ctx, _args, opts) => {
      const image =
        opts.image === undefined || opts.image === false
          ? undefined
          : opts.image === true
            ? Object.keys(IMAGE_MODELS)[0]
            : opts.image;
      const pulled = await pullModel(loadSettings(), { imageModel: image });
      if (opts.json) ctx.io.out(`${JSON.stringify(pulled)}\n`);
      else if (image !== undefined) {
        // The image model is loaded and tested (image-embedding.test.ts); crawls do not write image vectors yet.
        ctx.io.out(
          `${pulled.already ? `${pulled.model} is already in ${pulled.dir}` : `pulled ${pulled.model} into ${pulled.dir}`}: its contract test runs now (image-embedding.test.ts); crawls do not write image vectors yet\n`,
        );
      } else if (pulled.already) ctx.io.out(`${pulled.model} is already in ${pulled.dir}: crawls use it\n`);
      else {
        const bytes = pulled.files.reduce((a, f) => a + f.bytes, 0);
        ctx.io.out(
          `pulled ${pulled.model} into ${pulled.dir} (${pulled.files.length} files, ${mb(bytes)}): crawls use it\n`,
        );
      }
      return EXIT.ok;
    },
  }),
];
