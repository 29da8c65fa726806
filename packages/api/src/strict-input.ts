import type { FastifyInstance } from 'fastify';
import { HttpRefusal } from './envelope.js';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: boolean | Schema;
};

/** The JSON type of a parsed value, as JSON schema names it. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function accepts(types: string[], actual: string): boolean {
  return types.includes(actual) || (actual === 'integer' && types.includes('number'));
}

/**
 * The first place where a body's JSON type is not the one its schema declares (`body.name must be string`), or a
 * number that is not finite (`1e309` parses as Infinity). The validator coerces types, which suits a query string
 * (all text) but not a body: `{"name": 123}` would create a catalog named "123".
 */
export function bodyTypeProblem(
  schema: Schema | undefined,
  value: unknown,
  path: string,
  depth = 0,
): string | undefined {
  if (typeof value === 'number' && !Number.isFinite(value)) return `${path} must be a finite number`;
  if (!schema || depth > 16) return undefined;
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  const actual = jsonType(value);
  if (types.length > 0 && !accepts(types, actual)) return `${path} must be ${types.join(' or ')}`;
  if (actual === 'array') {
    for (const [i, item] of (value as unknown[]).entries()) {
      const problem = bodyTypeProblem(schema.items, item, `${path}[${i}]`, depth + 1);
      if (problem) return problem;
    }
  } else if (actual === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
      const problem = bodyTypeProblem(schema.properties?.[k] ?? extra, v, `${path}.${k}`, depth + 1);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** A query value the validator would take as a number although it is not a finite one (`1e309`, `Infinity`). */
function queryNumberProblem(schema: Schema | undefined, query: unknown): string | undefined {
  if (!schema?.properties || !query || typeof query !== 'object') return undefined;
  for (const [k, v] of Object.entries(query as Record<string, unknown>)) {
    const field = schema.properties[k];
    const types = field?.type === undefined ? [] : Array.isArray(field.type) ? field.type : [field.type];
    if (!types.includes('integer') && !types.includes('number')) continue;
    for (const one of Array.isArray(v) ? v : [v]) {
      if (typeof one === 'string' && one.trim() !== '' && !Number.isFinite(Number(one)) && !Number.isNaN(Number(one))) {
        return `querystring.${k} must be a finite number`;
      }
    }
  }
  return undefined;
}

/**
 * Before the validator runs: a body holds the JSON types its schema names (no coercion), no number anywhere is
 * infinite, and a numeric query field is finite. Each refusal is a 400 naming the field.
 */
export function installStrictInput(app: FastifyInstance): void {
  app.addHook('preValidation', async (req) => {
    const schema = req.routeOptions.schema as { body?: Schema; querystring?: Schema } | undefined;
    const problem =
      queryNumberProblem(schema?.querystring, req.query) ??
      (req.body !== undefined ? bodyTypeProblem(schema?.body, req.body, 'body') : undefined);
    if (problem) throw new HttpRefusal(400, problem);
  });
}
