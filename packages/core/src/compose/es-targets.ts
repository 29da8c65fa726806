import type { Logger } from 'pino';
import type { Settings } from '../config.js';
import { ElasticsearchIndex } from '../index/elasticsearch/elasticsearch-index.js';
import { esConnection } from '../index/elasticsearch/es-client.js';
import { EsVectorFamily } from '../vector/elasticsearch/es-vector-family.js';

/** The Elasticsearch index when GF_INDEX_PROVIDER=elasticsearch, else undefined (the factory builds its embedded default). */
export function esIndexTarget(settings: Readonly<Settings>, log: Logger): ElasticsearchIndex | undefined {
  if (settings.indexProvider !== 'elasticsearch') return undefined;
  return new ElasticsearchIndex({
    ...esConnection(settings),
    prefix: settings.indexPrefix,
    onWarning: (message) => log.warn(message),
  });
}

/** The Elasticsearch vector family when GF_VECTOR_STORE=elasticsearch, else undefined. */
export function esVectorTarget(settings: Readonly<Settings>, space: string | undefined): EsVectorFamily | undefined {
  if (settings.vectorStore !== 'elasticsearch') return undefined;
  return new EsVectorFamily({ ...esConnection(settings), collection: settings.vectorCollection, space });
}

/** The stores of this module (on an Elasticsearch server), for `checkStores`. */
export function isEsStore(store: unknown): store is ElasticsearchIndex | EsVectorFamily {
  return store instanceof ElasticsearchIndex || store instanceof EsVectorFamily;
}
