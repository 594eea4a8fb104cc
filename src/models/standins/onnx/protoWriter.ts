/**
 * A dependency-free protobuf encoder for the few ONNX messages needed to write
 * a model file: ModelProto, GraphProto, NodeProto, TensorProto,
 * ValueInfoProto, AttributeProto and OperatorSetIdProto.
 *
 * Why hand-written: the tiny stand-in models used in tests are generated at
 * set-up time (committing binaries is not wanted), and the `onnx` /
 * `protobufjs` packages would be a heavy dependency for ~150 lines of
 * encoding. Field numbers follow onnx/onnx.proto (IR version 8).
 */

/** ONNX TensorProto.DataType values for the element types we use. */
export const DataType = { float32: 1, uint8: 2, int8: 3, int32: 6, int64: 7, bool: 9, float16: 10 } as const;
export type ElemType = keyof typeof DataType;

/** A tensor value: element type, shape and little-endian raw bytes. */
export interface TensorValue {
  name?: string;
  type: ElemType;
  dims: readonly number[];
  raw: Uint8Array;
}

/** A dimension is a fixed size or a symbolic name (e.g. 'batch_size'). */
export type Dim = number | string;

export interface ValueInfo {
  name: string;
  type: ElemType;
  dims: readonly Dim[];
}

/** Attribute values, tagged so that 1.0 (a float) and 1 (an int) stay distinct. */
export type AttributeValue =
  | { kind: 'int'; value: number }
  | { kind: 'float'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'ints'; value: readonly number[] }
  | { kind: 'floats'; value: readonly number[] }
  | { kind: 'tensor'; value: TensorValue };

export interface NodeSpec {
  opType: string;
  inputs: readonly string[];
  outputs: readonly string[];
  name?: string;
  domain?: string;
  attributes?: Record<string, AttributeValue>;
}

export interface GraphSpec {
  name: string;
  nodes: readonly NodeSpec[];
  initializers: readonly TensorValue[];
  inputs: readonly ValueInfo[];
  outputs: readonly ValueInfo[];
}

export interface ModelSpec {
  graph: GraphSpec;
  /** Default 8. */
  irVersion?: number;
  /** Default [{ domain: '', version: 17 }]. */
  opsets?: readonly { domain: string; version: number }[];
  producerName?: string;
  docString?: string;
}

const WIRE_VARINT = 0;
const WIRE_FIXED32 = 5;
const WIRE_LEN = 2;
const utf8 = new TextEncoder();

/** Accumulates protobuf fields; nested messages are encoded into their own writer first. */
export class ProtoWriter {
  private chunks: Uint8Array[] = [];
  private length = 0;

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }

  /** Base-128 varint; negative numbers are written as 64-bit two's complement (10 bytes), as protobuf does. */
  rawVarint(n: number | bigint): void {
    let v = BigInt.asUintN(64, BigInt(n));
    const out: number[] = [];
    while (v >= 0x80n) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.push(Uint8Array.from(out));
  }

  private tag(field: number, wire: number): void {
    this.rawVarint((field << 3) | wire);
  }

  varint(field: number, n: number | bigint): void {
    this.tag(field, WIRE_VARINT);
    this.rawVarint(n);
  }

  float(field: number, f: number): void {
    this.tag(field, WIRE_FIXED32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, f, true);
    this.push(b);
  }

  bytes(field: number, b: Uint8Array): void {
    this.tag(field, WIRE_LEN);
    this.rawVarint(b.length);
    this.push(b);
  }

  string(field: number, s: string): void {
    this.bytes(field, utf8.encode(s));
  }

  message(field: number, encode: (w: ProtoWriter) => void): void {
    const inner = new ProtoWriter();
    encode(inner);
    this.bytes(field, inner.finish());
  }

  /** Packed repeated varints (proto3 default for repeated scalars). */
  packedVarints(field: number, values: readonly number[]): void {
    const inner = new ProtoWriter();
    for (const v of values) inner.rawVarint(v);
    this.bytes(field, inner.finish());
  }

  packedFloats(field: number, values: readonly number[]): void {
    this.bytes(field, new Uint8Array(Float32Array.from(values).buffer));
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.length);
    let offset = 0;
    for (const c of this.chunks) {
      out.set(c, offset);
      offset += c.length;
    }
    return out;
  }
}

// ---- ONNX messages -------------------------------------------------------

function writeTensor(w: ProtoWriter, t: TensorValue): void {
  if (t.dims.length) w.packedVarints(1, t.dims); // dims
  w.varint(2, DataType[t.type]); // data_type
  if (t.name) w.string(8, t.name); // name
  w.bytes(9, t.raw); // raw_data
}

function writeValueInfo(w: ProtoWriter, v: ValueInfo): void {
  w.string(1, v.name);
  w.message(2, (type) =>
    type.message(1, (tensor) => {
      tensor.varint(1, DataType[v.type]); // elem_type
      tensor.message(2, (shape) => {
        for (const d of v.dims) {
          shape.message(1, (dim) => (typeof d === 'number' ? dim.varint(1, d) : dim.string(2, d)));
        }
      });
    }),
  );
}

/** AttributeProto.AttributeType values. */
const ATTR_TYPE = { float: 1, int: 2, string: 3, tensor: 4, floats: 6, ints: 7 } as const;

function writeAttribute(w: ProtoWriter, name: string, a: AttributeValue): void {
  w.string(1, name);
  switch (a.kind) {
    case 'float':
      w.float(2, a.value);
      break;
    case 'int':
      w.varint(3, a.value);
      break;
    case 'string':
      w.string(4, a.value);
      break;
    case 'tensor':
      w.message(5, (t) => writeTensor(t, a.value));
      break;
    case 'floats':
      w.packedFloats(7, a.value);
      break;
    case 'ints':
      w.packedVarints(8, a.value);
      break;
  }
  w.varint(20, ATTR_TYPE[a.kind]);
}

function writeNode(w: ProtoWriter, n: NodeSpec): void {
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  if (n.name) w.string(3, n.name);
  w.string(4, n.opType);
  for (const [name, a] of Object.entries(n.attributes ?? {})) w.message(5, (m) => writeAttribute(m, name, a));
  if (n.domain) w.string(7, n.domain);
}

function writeGraph(w: ProtoWriter, g: GraphSpec): void {
  for (const n of g.nodes) w.message(1, (m) => writeNode(m, n));
  w.string(2, g.name);
  for (const t of g.initializers) w.message(5, (m) => writeTensor(m, t));
  for (const v of g.inputs) w.message(11, (m) => writeValueInfo(m, v));
  for (const v of g.outputs) w.message(12, (m) => writeValueInfo(m, v));
}

/** Encodes a whole ModelProto: the bytes of an `.onnx` file. */
export function encodeModel(spec: ModelSpec): Uint8Array {
  const w = new ProtoWriter();
  w.varint(1, spec.irVersion ?? 8); // ir_version
  w.string(2, spec.producerName ?? 'lumen-standin'); // producer_name
  if (spec.docString) w.string(6, spec.docString);
  w.message(7, (g) => writeGraph(g, spec.graph)); // graph
  for (const o of spec.opsets ?? [{ domain: '', version: 17 }]) {
    w.message(8, (m) => {
      if (o.domain) m.string(1, o.domain);
      m.varint(2, o.version);
    });
  }
  return w.finish();
}
