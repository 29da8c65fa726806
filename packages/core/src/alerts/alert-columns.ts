import type { TableSpec } from '../storage/record-columns.js';
import type { AlertRow } from './alert-store.js';

/** gf_alert, in the column order of schema.prisma. */
export const ALERT: TableSpec<AlertRow> = {
  table: 'gf_alert',
  conflict: ['id'],
  columns: [
    { column: 'id', key: 'id', kind: 'text' },
    { column: 'catalog_id', key: 'catalogId', kind: 'text' },
    { column: 'name', key: 'name', kind: 'text' },
    { column: 'query', key: 'query', kind: 'text' },
    { column: 'mode', key: 'mode', kind: 'text' },
    { column: 'created_at', key: 'createdAt', kind: 'time' },
    { column: 'last_fired_at', key: 'lastFiredAt', kind: 'time' },
    { column: 'last_matches', key: 'lastMatches', kind: 'json' },
  ],
};
