import type { Settings } from '../config.js';
import { chooseEmbeddingSpec } from '../embeddings/create-embedding-client.js';
import { vectorCollectionName } from '../embeddings/vector-space.js';

/**
 * The store settings of the other families (GF_INDEX_PROVIDER, GF_VECTOR_STORE, GF_FILE_TARGET), read loosely: the
 * embedded kind when a setting is absent.
 */
type StoreSettings = Pick<Settings, 'databaseUrl' | 'vectorCollection'> &
  Partial<Pick<Settings, 'embeddingProvider' | 'embeddingModel' | 'textModel'>> & {
    indexProvider?: string | undefined;
    vectorStore?: string | undefined;
    fileTarget?: string | undefined;
  };

/** The layers whose store may be per node (replicated in a cluster) or shared by every member. */
export const STORE_FAMILIES = ['records', 'index', 'vectors', 'files'] as const;
export type StoreFamily = (typeof STORE_FAMILIES)[number];

/** Seed 000's replicated-or-shared: a per-node store is copied to every member by its channel; a shared one is not. */
export type StoreSharing = 'replicated' | 'shared';

/** Which store each layer uses, as `catalog show`, `status` and GET /v2/system name it. */
export interface StoreProviders {
  records: { provider: 'sqlite' | 'postgresql' };
  index: { provider: string };
  vectors: { provider: string; collection: string };
  files: { provider: string };
  /** The model's width once it is known (the client loaded, or a collection of this provider written). */
  embeddings: { provider: string; model: string; dims?: number | undefined };
}

/** The provider of each layer, from the settings alone (nothing is opened). */
export function storeProviders(settings: StoreSettings, dims?: number): StoreProviders {
  const s = settings as StoreSettings;
  const embedding = s.embeddingProvider ?? 'local';
  return {
    records: { provider: /^postgres(ql)?:/i.test(s.databaseUrl) ? 'postgresql' : 'sqlite' },
    index: { provider: s.indexProvider ?? 'sqlite' },
    vectors: { provider: s.vectorStore ?? 'sqlite', collection: vectorCollectionName(s) },
    files: { provider: s.fileTarget ?? 'local' },
    embeddings: {
      provider: embedding,
      model: (embedding === 'local' ? s.textModel : s.embeddingModel) ?? '',
      ...(dims !== undefined && { dims }),
    },
  };
}

/**
 * Seed 000's table, decided from the configuration: per family, whether a cluster's members each keep a copy (the
 * record, search, vector and blob channels carry what a run writes to the others) or share one store (the channel
 * carries nothing). SQLite, the embedded index, sqlite-vec and the local disk are per node; PostgreSQL,
 * Elasticsearch, Qdrant and an S3-compatible bucket are shared.
 */
export function clusterSharing(settings: StoreSettings): Record<StoreFamily, StoreSharing> {
  const p = storeProviders(settings);
  const shared = (yes: boolean): StoreSharing => (yes ? 'shared' : 'replicated');
  return {
    records: shared(p.records.provider === 'postgresql'),
    index: shared(p.index.provider !== 'sqlite'),
    vectors: shared(p.vectors.provider !== 'sqlite'),
    files: shared(p.files.provider !== 'local'),
  };
}

/** One line per layer for a terminal: `index  sqlite  (replicated in a cluster)`. */
export function formatStoreProviders(p: StoreProviders, sharing: Record<StoreFamily, StoreSharing>): string[] {
  const e = p.embeddings;
  const rows: Array<[string, string, string]> = [
    ['records', p.records.provider, sharing.records],
    ['index', p.index.provider, sharing.index],
    ['vectors', `${p.vectors.provider} (${p.vectors.collection}_{dims})`, sharing.vectors],
    ['files', p.files.provider, sharing.files],
  ];
  const width = Math.max(...rows.map((r) => r[1].length));
  return [
    ...rows.map(([layer, what, how]) => `${layer.padEnd(11)}${what.padEnd(width)}  ${how} in a cluster`),
    `${'embeddings'.padEnd(11)}${e.provider} ${e.model || '(default model)'}${e.dims ? `, ${e.dims}-d` : ''}`,
  ];
}

/** What a node uses, for `status`, `catalog show` and GET /v2/system. */
export interface StoresInUse {
  providers: StoreProviders;
  /** Per family: copied to every member of a cluster by its channel, or one store they share. */
  cluster: Record<StoreFamily, StoreSharing>;
}

/**
 * The node's stores, the embedding width included when it is known without asking anyone: the width of the
 * collection this provider and model wrote (the newest width when it changed). A vector store that cannot be read
 * now leaves the width out rather than failing.
 */
export async function storesInUse(node: {
  settings: Readonly<Settings>;
  vectorFamily(): { collections(): Promise<Array<{ collection: string; dims: number }>> };
}): Promise<StoresInUse> {
  const name = vectorCollectionName(node.settings);
  let dims: number | undefined;
  try {
    for (const c of await node.vectorFamily().collections()) if (c.collection === name) dims = c.dims;
  } catch {
    dims = undefined;
  }
  const providers = storeProviders(node.settings, dims);
  // The local model that loads: GF_TEXT_MODEL when it is in GF_MODEL_DIR, else the bundled one (decided, not loaded).
  if (providers.embeddings.provider === 'local' && chooseEmbeddingSpec(node.settings).kind !== 'transformers') {
    providers.embeddings.model = 'use-lite-512';
  }
  return { providers, cluster: clusterSharing(node.settings) };
}
