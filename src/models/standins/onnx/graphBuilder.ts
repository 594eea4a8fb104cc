/**
 * A small builder over protoWriter for writing ONNX graphs by hand:
 *
 *   const g = new GraphBuilder('double');
 *   const x = g.input('x', 'float32', ['batch_size', 3]);
 *   g.output(g.op('Mul', [x, g.scalar(2)]), 'y', 'float32', ['batch_size', 3]);
 *   const bytes = g.toModel();
 *
 * Node outputs get generated names unless given; `output()` renames the final
 * value with an Identity node so graph output names match what a loader expects
 * (e.g. `image_embeds`).
 */
import {
  encodeModel,
  type AttributeValue,
  type Dim,
  type ElemType,
  type NodeSpec,
  type TensorValue,
  type ValueInfo,
} from './protoWriter.js';

/** Attribute shorthand: integers → INT, other numbers → FLOAT, arrays likewise, strings → STRING. */
export type AttrInput = number | string | readonly number[] | AttributeValue;

/** Forces a FLOAT attribute for integral values (e.g. `alpha: float(1)`). */
export const float = (value: number): AttributeValue => ({ kind: 'float', value });
/** Forces FLOATS for an all-integral array. */
export const floats = (value: readonly number[]): AttributeValue => ({ kind: 'floats', value });

function toAttribute(v: AttrInput): AttributeValue {
  if (typeof v === 'number') return Number.isInteger(v) ? { kind: 'int', value: v } : { kind: 'float', value: v };
  if (typeof v === 'string') return { kind: 'string', value: v };
  if (Array.isArray(v)) {
    const arr = v as readonly number[];
    return arr.every(Number.isInteger) ? { kind: 'ints', value: arr } : { kind: 'floats', value: arr };
  }
  return v as AttributeValue;
}

/** Little-endian raw bytes of a typed array (the layout ONNX raw_data expects). */
function rawBytes(data: Float32Array | BigInt64Array | Int32Array | Int8Array | Uint8Array): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

export class GraphBuilder {
  private nodes: NodeSpec[] = [];
  private initializers: TensorValue[] = [];
  private inputs: ValueInfo[] = [];
  private outputs: ValueInfo[] = [];
  private counter = 0;

  constructor(readonly name: string) {}

  private fresh(hint: string): string {
    return `${hint}_${this.counter++}`;
  }

  /** Declares a graph input; returns its name for use in nodes. */
  input(name: string, type: ElemType, dims: readonly Dim[]): string {
    this.inputs.push({ name, type, dims });
    return name;
  }

  /** Declares a graph output named `name`, fed from value `from` (an Identity node is added if names differ). */
  output(from: string, name: string, type: ElemType, dims: readonly Dim[]): string {
    if (from !== name) this.nodes.push({ opType: 'Identity', inputs: [from], outputs: [name] });
    this.outputs.push({ name, type, dims });
    return name;
  }

  /** A float32 weight tensor. */
  floatTensor(data: Float32Array | readonly number[], dims: readonly number[], hint = 'w'): string {
    const arr = data instanceof Float32Array ? data : Float32Array.from(data);
    return this.tensor('float32', rawBytes(arr), dims, hint, arr.length);
  }

  /** An int64 tensor (shapes, axes, indices). */
  int64Tensor(data: readonly number[], dims: readonly number[] = [data.length], hint = 'i'): string {
    return this.tensor('int64', rawBytes(BigInt64Array.from(data.map((n) => BigInt(n)))), dims, hint, data.length);
  }

  /** An int8 weight tensor (quantized weights: the bench's int8 cost graphs). */
  int8Tensor(data: Int8Array, dims: readonly number[], hint = 'q'): string {
    return this.tensor('int8', rawBytes(data), dims, hint, data.length);
  }

  /** A float32 scalar constant. */
  scalar(value: number, hint = 'c'): string {
    return this.floatTensor([value], [], hint);
  }

  private tensor(type: ElemType, raw: Uint8Array, dims: readonly number[], hint: string, count: number): string {
    const expected = dims.reduce((a, b) => a * b, 1);
    if (expected !== count) throw new Error(`tensor ${hint}: ${count} values for dims [${dims.join(',')}]`);
    const name = this.fresh(hint);
    this.initializers.push({ name, type, dims, raw: raw.slice() });
    return name;
  }

  /** Adds a node with `outputs` outputs (count or explicit names); returns the output names. */
  node(
    opType: string,
    inputs: readonly string[],
    attrs: Record<string, AttrInput> = {},
    outputs: number | readonly string[] = 1,
  ): string[] {
    const names =
      typeof outputs === 'number'
        ? Array.from({ length: outputs }, () => this.fresh(opType.toLowerCase()))
        : [...outputs];
    const attributes = Object.fromEntries(Object.entries(attrs).map(([k, v]) => [k, toAttribute(v)]));
    this.nodes.push({ opType, inputs, outputs: names, attributes });
    return names;
  }

  /** Adds a single-output node; returns its output name. */
  op(opType: string, inputs: readonly string[], attrs: Record<string, AttrInput> = {}): string {
    return this.node(opType, inputs, attrs)[0];
  }

  /** The ModelProto bytes (opset 17, IR 8 unless told otherwise). */
  toModel(opts: { opset?: number; irVersion?: number; docString?: string } = {}): Uint8Array {
    return encodeModel({
      graph: {
        name: this.name,
        nodes: this.nodes,
        initializers: this.initializers,
        inputs: this.inputs,
        outputs: this.outputs,
      },
      irVersion: opts.irVersion ?? 8,
      opsets: [{ domain: '', version: opts.opset ?? 17 }],
      docString: opts.docString,
    });
  }
}
