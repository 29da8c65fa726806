import { catalogSettingsSchema, LEDGER_STATES } from '@greenfinger/core';
import { z } from 'zod';

type Json = Record<string, unknown>;

/** Drop `default` (and `$schema`) everywhere: a partial settings patch must not be filled in by the validator. */
function withoutDefaults(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDefaults);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === 'default' || k === '$schema') continue;
    out[k] = withoutDefaults(v);
  }
  return out;
}

/**
 * The catalog settings as JSON schema, from the one zod schema core validates with (so the API and the CLI cannot
 * disagree): every field optional, unknown fields refused.
 */
export const catalogSettingsJson = withoutDefaults(
  z.toJSONSchema(catalogSettingsSchema.partial(), { target: 'draft-7', io: 'input', unrepresentable: 'any' }),
) as Json;

/** A catalog as `catalog show --json` prints it; `url` is required to create one. */
export const catalogBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    url: { type: 'string', minLength: 1, maxLength: 2048 },
    startUrl: { type: 'string', minLength: 1, maxLength: 2048 },
    settings: catalogSettingsJson,
    // Fields `catalog show --json` prints that a client may send back unchanged; they are ignored.
    id: { type: 'string' },
    indexVersion: { type: 'integer' },
    searchVersion: { type: 'integer' },
    runningState: { type: 'string' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
} as const;

export const refParams = {
  type: 'object',
  required: ['ref'],
  properties: { ref: { type: 'string', minLength: 1, maxLength: 2048 } },
} as const;

export const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' } },
} as const;

export const ledgerStates = [...LEDGER_STATES];

/** The envelope every answer uses, for the description. */
export function envelope(data: Json = {}): Json {
  return {
    type: 'object',
    properties: { success: { type: 'boolean' }, message: { type: 'string' }, data },
  };
}

export const paging = {
  limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
  offset: { type: 'integer', minimum: 0, maximum: 10_000_000, default: 0 },
} as const;
