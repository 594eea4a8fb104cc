/**
 * The hand-written ONNX protobuf encoder: wire-format details, and a round trip
 * through onnxruntime-node (it parses the bytes, runs the graph, and the
 * numbers come out right).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import ort from 'onnxruntime-node';
import { GraphBuilder, float } from '../../src/models/standins/onnx/graphBuilder.js';
import { ProtoWriter, encodeModel } from '../../src/models/standins/onnx/protoWriter.js';

test("varints: small, multi-byte and negative (10-byte two's complement)", () => {
  const w = new ProtoWriter();
  w.rawVarint(1);
  w.rawVarint(300);
  w.rawVarint(-1);
  assert.equal([...w.finish()], [0x01, 0xac, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
});

test('fields: tag layout of varint, length-delimited and fixed32', () => {
  const w = new ProtoWriter();
  w.varint(1, 8); // ir_version = 8
  w.string(2, 'ab');
  w.float(2, 1);
  assert.equal([...w.finish()], [0x08, 0x08, 0x12, 0x02, 0x61, 0x62, 0x15, 0x00, 0x00, 0x80, 0x3f]);
});

test('an empty-graph ModelProto starts with ir_version and names its opset', () => {
  const bytes = encodeModel({ graph: { name: 'g', nodes: [], initializers: [], inputs: [], outputs: [] } });
  assert.equal([...bytes.slice(0, 2)], [0x08, 0x08]);
  // opset_import (field 8) holding version 17 (field 2): 0x42 len 0x10 0x11
  assert.ok(Buffer.from(bytes).includes(Buffer.from([0x42, 0x02, 0x10, 0x11])));
});

test('onnxruntime loads and runs a built graph (Gather, MatMul, Conv, Softmax, ReduceSum, attributes)', async () => {
  const g = new GraphBuilder('round_trip');
  const ids = g.input('ids', 'int64', ['batch_size', 'seq']);
  const x = g.input('x', 'float32', ['batch_size', 2, 2, 2]);
  // Gather rows of a 3×2 table, sum over the sequence axis.
  const table = g.floatTensor([1, 0, 0, 1, 2, 3], [3, 2]);
  const summed = g.op('ReduceSum', [g.op('Gather', [table, ids], { axis: 0 }), g.int64Tensor([1])], { keepdims: 0 });
  g.output(summed, 'sum', 'float32', ['batch_size', 2]);
  // 1×1 conv (channel swap + bias), softmax over channels, mean pool.
  const conv = g.op('Conv', [x, g.floatTensor([0, 1, 1, 0], [2, 2, 1, 1]), g.floatTensor([0, 0.5], [2])], {
    kernel_shape: [1, 1],
    strides: [1, 1],
  });
  const pooled = g.op('Flatten', [g.op('GlobalAveragePool', [g.op('Softmax', [conv], { axis: 1 })])], { axis: 1 });
  g.output(pooled, 'pooled', 'float32', ['batch_size', 2]);
  // Float attribute that is integral (needs the float() tag) and a negative int attribute.
  const elu = g.op('Elu', [g.op('MatMul', [summed, g.floatTensor([1, -1, -1, 1], [2, 2])])], { alpha: float(1) });
  g.output(g.op('Softmax', [elu], { axis: -1 }), 'probs', 'float32', ['batch_size', 2]);

  const session = await ort.InferenceSession.create(g.toModel());
  assert.equal(session.inputNames, ['ids', 'x']);
  assert.equal(session.outputNames, ['sum', 'pooled', 'probs']);
  const out = await session.run({
    ids: new ort.Tensor('int64', BigInt64Array.from([0n, 2n, 1n, 1n]), [2, 2]),
    x: new ort.Tensor('float32', new Float32Array(16).fill(0), [2, 2, 2, 2]),
  });
  assert.equal([...(out.sum.data as Float32Array)], [3, 3, 0, 2]);
  const pooled0 = out.pooled.data as Float32Array;
  const expected = 1 / (1 + Math.exp(0.5)); // softmax([0, 0.5])[0]
  assert.ok(Math.abs(pooled0[0] - expected) < 1e-6, `pooled ${pooled0[0]} vs ${expected}`);
  const probs = out.probs.data as Float32Array;
  assert.ok(Math.abs(probs[0] + probs[1] - 1) < 1e-6);
  assert.ok(Math.abs(probs[0] - 0.5) < 1e-6, 'sum [3,3] → MatMul [0,0] → equal probabilities');
  assert.ok(probs[3] > probs[2], 'second row [0,2] favours the second class');
});

test('GraphBuilder rejects a tensor whose data does not fit its dims', () => {
  const g = new GraphBuilder('bad');
  assert.throws(() => g.floatTensor([1, 2, 3], [2, 2]), /3 values for dims \[2,2\]/);
});

test.run();
