// The page's API types from the API's description (/v2/openapi.json): every named shape of components.schemas
// becomes an interface (or a type), and ApiAnswers maps each route ("METHOD /path") to the type of its answer's
// `data`, ApiBodies to the JSON body it takes. Only the JSON schema the description uses is read: type (one or a
// list), nullable, enum, const, properties/required, additionalProperties, items, $ref, allOf, anyOf, oneOf, description.
// The text is formatted by biome afterwards (api-types.mjs), so here it only has to be valid TypeScript.

const HEADER = `// Generated from the API's description (/v2/openapi.json) by packages/web/scripts/api-types.mjs. Do not edit:
// change the API (its answers are described in packages/api/src/answer-shapes.ts), then run
// \`node packages/web/scripts/api-types.mjs\`. packages/web/test/api-types.test.ts fails while this file is stale.
`;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (k) => (IDENT.test(k) ? k : JSON.stringify(k));
const comment = (text, pad) => (text ? `${pad}/** ${String(text).replaceAll('*/', '* /')} */\n` : '');

/** Named shapes by their text without description: a route repeating one inline (catalog settings) names it. */
let named = new Map();
const shapeKey = (s) => JSON.stringify({ ...s, description: undefined }, (_k, v) => constAsEnum(v));
/** Swagger writes a route's `const` as a one-value `enum`; the named shapes keep `const`. */
const constAsEnum = (v) =>
  v && typeof v === 'object' && 'const' in v ? { ...v, const: undefined, enum: [v.const] } : v;

/** The TypeScript type of one schema; `pad` is the indentation of the line it starts on. */
function typeOf(s, pad, declaring) {
  if (!s || typeof s !== 'object' || Object.keys(s).length === 0) return 'unknown';
  let t;
  if (s.properties && !declaring && named.has(shapeKey(s))) t = named.get(shapeKey(s));
  else if (s.$ref) t = s.$ref.split('/').pop();
  else if (s.allOf) t = s.allOf.map((x) => typeOf(x, pad)).join(' & ');
  else if (s.anyOf || s.oneOf) t = union((s.anyOf ?? s.oneOf).map((x) => typeOf(x, pad)));
  else if ('const' in s) t = JSON.stringify(s.const);
  else if (s.enum) t = union(s.enum.map((v) => JSON.stringify(v)));
  else if (Array.isArray(s.type)) t = union(s.type.map((ty) => typeOf({ ...s, type: ty, nullable: false }, pad)));
  else if (s.type === 'string') t = 'string';
  else if (s.type === 'number' || s.type === 'integer') t = 'number';
  else if (s.type === 'boolean') t = 'boolean';
  else if (s.type === 'null') t = 'null';
  else if (s.type === 'array') t = arrayOf(typeOf(s.items, pad));
  else if (s.type === 'object' || s.properties) t = objectOf(s, pad);
  else t = 'unknown';
  return s.nullable ? union([t, 'null']) : t;
}

function union(parts) {
  const unique = [...new Set(parts)];
  return unique.map((p) => (p.includes('&') ? `(${p})` : p)).join(' | ');
}

const arrayOf = (t) => (/^[A-Za-z0-9_]+$/.test(t) ? `${t}[]` : `Array<${t}>`);

function objectOf(s, pad) {
  const props = Object.entries(s.properties ?? {});
  const extra = s.additionalProperties;
  if (props.length === 0) {
    if (extra === false) return 'Record<string, never>';
    return `Record<string, ${extra && extra !== true ? typeOf(extra, pad) : 'unknown'}>`;
  }
  const inner = `${pad}  `;
  const required = new Set(s.required ?? []);
  let body = '';
  for (const [name, p] of props) {
    body += comment(p.description, inner);
    body += `${inner}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(p, inner)};\n`;
  }
  if (extra === true) body += `${inner}[key: string]: unknown;\n`;
  else if (extra && typeof extra === 'object') body += `${inner}[key: string]: ${typeOf(extra, inner)};\n`;
  return `{\n${body}${pad}}`;
}

/** One named shape: an interface when it is an object with properties, else a type. */
function declaration(name, s) {
  const t = typeOf(s, '', name);
  const head = comment(s.description, '');
  if (t.startsWith('{\n')) return `${head}export interface ${name} ${t}\n`;
  return `${head}export type ${name} = ${t};\n`;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** The TypeScript text for an OpenAPI 3 description, before formatting. */
export function generate(openapi) {
  const schemas = openapi.components?.schemas ?? {};
  named = new Map(Object.entries(schemas).map(([name, s]) => [shapeKey(s), name]));
  let out = HEADER;
  for (const name of Object.keys(schemas).sort()) out += `\n${declaration(name, schemas[name])}`;
  const answers = [];
  const bodies = [];
  for (const path of Object.keys(openapi.paths ?? {}).sort()) {
    for (const method of METHODS) {
      const op = openapi.paths[path][method];
      if (!op) continue;
      const route = `${method.toUpperCase()} ${path}`;
      const answer = op.responses?.['200']?.content?.['application/json']?.schema;
      const data = answer?.properties?.data;
      if (data) answers.push(`${comment(op.summary, '  ')}  ${JSON.stringify(route)}: ${typeOf(data, '  ')};\n`);
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (body) bodies.push(`  ${JSON.stringify(route)}: ${typeOf(body, '  ')};\n`);
    }
  }
  out += `\n/** The \`data\` of each route's answer (inside {success, message, data}), by "METHOD /path". */\n`;
  out += `export interface ApiAnswers {\n${answers.join('')}}\n`;
  out += `\n/** The JSON body each route takes, by "METHOD /path". */\n`;
  out += `export interface ApiBodies {\n${bodies.join('')}}\n`;
  return out;
}
