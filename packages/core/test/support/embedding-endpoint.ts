import { createServer, type Server } from 'node:http';
import { chooseEmbeddingSpec, type EmbeddingClient, loadEmbeddingClient } from '@greenfinger/core/internal';
import { closeServer, listen } from './loopback.js';

/**
 * A loopback embedding endpoint speaking both HTTP protocols — ollama (`POST /api/embed` {model, input} →
 * {embeddings}) and OpenAI (`POST /v1/embeddings` {model, input} → {data: [{embedding, index}]}) — whose vectors are
 * REAL: the project's bundled local model computes them, in this process. Two models are served:
 * - `local-model`: the local model's own vectors, at its width;
 * - `local-model-pad-<n>`: the same vectors followed by zeros up to width n (zero padding keeps every cosine, so
 *   meaning search ranks exactly as with the model itself, at another width).
 * Any other model answers 404 as ollama does. Every request's model and inputs are kept.
 */
export interface EmbeddingEndpoint extends AsyncDisposable {
  /** `http://127.0.0.1:port` (ollama's base url; OpenAI's is `${url}/v1`). */
  url: string;
  /** The width of `local-model`. */
  dims: number;
  requests: Array<{ protocol: 'ollama' | 'openai'; model: string; input: string[] }>;
  /** Every text that arrived, in order. */
  texts(): string[];
  close(): Promise<void>;
}

export async function startEmbeddingEndpoint(): Promise<EmbeddingEndpoint> {
  // The model a node with no GF_MODEL_DIR model would load (the bundled Universal Sentence Encoder lite).
  const model: EmbeddingClient = await loadEmbeddingClient(
    chooseEmbeddingSpec({ modelDir: './no-models-here', textModel: 'none' }),
  );
  const requests: EmbeddingEndpoint['requests'] = [];
  const widthOf = (name: string): number | undefined => {
    if (name === 'local-model') return model.dims;
    const m = /^local-model-pad-(\d+)$/.exec(name);
    return m && Number(m[1]) >= model.dims ? Number(m[1]) : undefined;
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const protocol = req.url === '/api/embed' ? 'ollama' : req.url === '/v1/embeddings' ? 'openai' : undefined;
        if (req.method !== 'POST' || !protocol) return res.writeHead(404).end('{"error":"not found"}');
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: string; input?: unknown };
        const input = typeof body.input === 'string' ? [body.input] : (body.input as string[]);
        const width = widthOf(String(body.model));
        if (!width || !Array.isArray(input)) {
          return res
            .writeHead(404)
            .end(JSON.stringify({ error: `model "${body.model}" not found, try pulling it first` }));
        }
        requests.push({ protocol, model: String(body.model), input });
        const vectors = (await model.embedDocuments(input)).map((v) => {
          const out = new Array<number>(width).fill(0);
          v.forEach((x, i) => {
            out[i] = x;
          });
          return out;
        });
        const answer =
          protocol === 'ollama'
            ? { model: body.model, embeddings: vectors }
            : {
                object: 'list',
                model: body.model,
                data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
              };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      })().catch((err: unknown) => res.writeHead(500).end(JSON.stringify({ error: String(err) })));
    });
  });
  const port = await listen(server);
  const close = async () => {
    await closeServer(server);
    await model.close();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    dims: model.dims,
    requests,
    texts: () => requests.flatMap((r) => r.input),
    close,
    [Symbol.asyncDispose]: close,
  };
}
