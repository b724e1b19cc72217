// ort_run.js: runs an ONNX model with ONNX Runtime (npm's onnxruntime-node) on .npy inputs and
// writes its outputs as .npy files — the inference reference of the exporter's tests and of
// bench/onnx.
//
//   node ort_run.js MODEL.onnx THREADS OUT_DIR NAME=FILE.npy... [--repeat N]
//
// Prints one JSON line: {"outputs": [names], "seconds_per_run": t, "peak_rss_mb": m} (t: the
// mean of N runs after one warm-up run, 0 without --repeat; m: the process's peak resident set). ONNX Runtime is found through
// NODE_PATH (scripts/onnxruntime-setup.sh says where it installs it).
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const kTypes = {'<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array], '<i8': ['int64', BigInt64Array],
                '<i4': ['int32', Int32Array], '<i2': ['int16', Int16Array], '|i1': ['int8', Int8Array],
                '|b1': ['bool', Uint8Array], '|u1': ['uint8', Uint8Array], '<f2': ['float16', Uint16Array]};

function readNpy(file) {
  const bytes = fs.readFileSync(file);
  if (bytes.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not an .npy file`);
  const major = bytes[6];
  const headerLength = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLength;
  const header = bytes.toString('latin1', major === 1 ? 10 : 12, start);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order`);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').filter((s) => s.trim()).map(Number);
  const type = kTypes[descr];
  if (!type) throw new Error(`${file}: dtype ${descr} is not supported`);
  const data = bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + bytes.length);
  return new ort.Tensor(type[0], new type[1](data), shape);
}

function writeNpy(file, tensor) {
  const descr = Object.keys(kTypes).find((k) => kTypes[k][0] === tensor.type);
  if (!descr) throw new Error(`output of type ${tensor.type} is not supported`);
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([prefix, Buffer.from(header, 'latin1'), data]));
}

(async () => {
  const args = process.argv.slice(2);
  let repeat = 0;
  const at = args.indexOf('--repeat');
  if (at >= 0) repeat = Number(args.splice(at, 2)[1]);
  const [model, threads, outDir, ...pairs] = args;
  const session = await ort.InferenceSession.create(model, {intraOpNumThreads: Number(threads), interOpNumThreads: 1,
                                                            executionMode: 'sequential'});
  const feeds = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    feeds[pair.slice(0, eq)] = readNpy(pair.slice(eq + 1));
  }
  let outputs = await session.run(feeds);
  let seconds = 0;
  if (repeat > 0) {
    const begin = process.hrtime.bigint();
    for (let i = 0; i < repeat; ++i) outputs = await session.run(feeds);
    seconds = Number(process.hrtime.bigint() - begin) / 1e9 / repeat;
  }
  fs.mkdirSync(outDir, {recursive: true});
  for (const name of Object.keys(outputs)) writeNpy(path.join(outDir, `${name}.npy`), outputs[name]);
  console.log(JSON.stringify({outputs: Object.keys(outputs), seconds_per_run: seconds,
                              peak_rss_mb: process.resourceUsage().maxRSS / 1024}));
})().catch((e) => {
  console.error(`ort_run.js: ${e.message}`);
  process.exit(1);
});
