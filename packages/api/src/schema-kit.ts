// The few JSON-schema builders answer-shapes.ts describes the answers with (OpenAPI 3.0).

/** A JSON schema, as the description writes it. */
export type Schema = Record<string, unknown>;

export const str: Schema = { type: 'string' };
export const num: Schema = { type: 'number' };
export const int: Schema = { type: 'integer' };
export const bool: Schema = { type: 'boolean' };
/** OpenAPI 3.0 ignores the siblings of a `$ref`: a nullable reference is written `{ nullable, allOf: [ref] }`. */
export const nullable = (s: Schema): Schema => (s.$ref ? { nullable: true, allOf: [s] } : { ...s, nullable: true });
export const list = (items: Schema): Schema => ({ type: 'array', items });
export const counts: Schema = { type: 'object', additionalProperties: num };
export const lines: Schema = { type: 'object', additionalProperties: str };
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const doc = (description: string, s: Schema): Schema => ({ ...s, description });

/** An object; every property is required but those named in `optional`. */
export function obj(properties: Record<string, Schema>, optional: string[] = [], open = false): Schema {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    ...(open ? { additionalProperties: true } : {}),
  };
}
