// Provenant verifier worker. embed.js starts it from a blob: URL (a worker
// script must be same-origin with the page) and sends {type: "init",
// base}. Each request then names an image URL and/or a record id; the
// worker fetches the image itself, runs the verifier module's analyze on
// the bytes, posts only the resulting facts to the lookup endpoint (never
// the image), and lets the module check every candidate's signature and
// Merkle proof and decide. docs/widget.md is the contract.
'use strict';

let base = '';
let modulePromise = null;

const EBADF = 8;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

// wasiShim implements the wasi_snapshot_preview1 imports Go's wasip1
// runtime calls (the set is pinned by a test in wasm/wasmtest). The module
// reads no files and no environment; it needs a clock, randomness, a
// console for panics, and a scheduler that never blocks.
function wasiShim(ref) {
  const view = () => new DataView(ref.exports.memory.buffer);
  const bytes = (p, n) => new Uint8Array(ref.exports.memory.buffer, p, n);
  const zeroPair = (a, b) => {
    const v = view();
    v.setUint32(a, 0, true);
    v.setUint32(b, 0, true);
    return 0;
  };
  const ebadf = () => EBADF;
  return {
    args_sizes_get: zeroPair,
    args_get: () => 0,
    environ_sizes_get: zeroPair,
    environ_get: () => 0,
    clock_time_get(id, _precision, out) {
      // 0 is the realtime clock; the others are monotonic.
      const ns = id === 0
        ? BigInt(Date.now()) * 1000000n
        : BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
      view().setBigUint64(out, ns, true);
      return 0;
    },
    random_get(p, n) {
      const b = bytes(p, n);
      for (let i = 0; i < n; i += 65536) {
        crypto.getRandomValues(b.subarray(i, Math.min(n, i + 65536)));
      }
      return 0;
    },
    fd_write(fd, iovs, iovsLen, nwritten) {
      const v = view();
      let text = '';
      let total = 0;
      for (let i = 0; i < iovsLen; i++) {
        const p = v.getUint32(iovs + i * 8, true);
        const n = v.getUint32(iovs + i * 8 + 4, true);
        text += decoder.decode(bytes(p, n));
        total += n;
      }
      (fd === 2 ? console.error : console.log)('provenant verifier:', text);
      v.setUint32(nwritten, total, true);
      return 0;
    },
    proc_exit(code) {
      modulePromise = null; // the instance is dead; the next request loads a new one
      throw new Error('verifier module exited with code ' + code);
    },
    // Every subscription fires at once: the module's goroutines only wait
    // on each other, never on time or I/O.
    poll_oneoff(inPtr, outPtr, nsubs, neventsPtr) {
      const v = view();
      for (let i = 0; i < nsubs; i++) {
        const s = inPtr + i * 48;
        const e = outPtr + i * 32;
        v.setBigUint64(e, v.getBigUint64(s, true), true); // userdata
        v.setUint16(e + 8, 0, true); // error
        v.setUint8(e + 10, v.getUint8(s + 8)); // type = the subscription's tag
      }
      v.setUint32(neventsPtr, nsubs, true);
      return 0;
    },
    sched_yield: () => 0,
    fd_close: ebadf,
    fd_read: ebadf,
    fd_fdstat_get: ebadf,
    fd_fdstat_set_flags: ebadf,
    fd_prestat_get: ebadf,
    fd_prestat_dir_name: ebadf,
    path_open: ebadf,
    path_filestat_get: ebadf,
  };
}

async function fetchOK(url, init) {
  const r = await fetch(url, init);
  if (!r.ok) {
    throw new Error(url + ' answered ' + r.status);
  }
  return r;
}

// load fetches the manifest and the module once; every request shares the
// instance (a worker runs one request at a time).
function load() {
  if (!modulePromise) {
    modulePromise = (async () => {
      const manifest = await (await fetchOK(base + '/api/v1/widget/manifest.json', {credentials: 'omit'})).json();
      const url = new URL(manifest.wasm, base + '/').href;
      const ref = {};
      const imports = {wasi_snapshot_preview1: wasiShim(ref)};
      let result;
      try {
        result = await WebAssembly.instantiateStreaming(fetchOK(url, {credentials: 'omit'}), imports);
      } catch (e) {
        // A proxy that rewrites Content-Type defeats streaming compilation.
        const buf = await (await fetchOK(url, {credentials: 'omit'})).arrayBuffer();
        result = await WebAssembly.instantiate(buf, imports);
      }
      ref.exports = result.instance.exports;
      ref.exports._initialize();
      return ref.exports;
    })();
    modulePromise.catch(() => { modulePromise = null; });
  }
  return modulePromise;
}

// call passes input to a module export (one copy in, one copy out) and
// parses its JSON answer.
function call(ex, name, input) {
  const n = input.length;
  const p = ex.alloc(n) >>> 0;
  new Uint8Array(ex.memory.buffer, p, n).set(input);
  let r;
  try {
    r = BigInt.asUintN(64, ex[name](p, n));
  } finally {
    ex.free(p);
  }
  const rp = Number(r >> 32n);
  const rl = Number(r & 0xffffffffn);
  const out = decoder.decode(new Uint8Array(ex.memory.buffer, rp, rl));
  ex.free(rp);
  const v = JSON.parse(out);
  if (!v.ok) {
    const err = new Error(name + ': ' + v.error.code + (v.error.detail ? ': ' + v.error.detail : ''));
    err.code = v.error.code;
    throw err;
  }
  return v;
}

const callJSON = (ex, name, v) => call(ex, name, encoder.encode(JSON.stringify(v)));

// statusOf maps the module's decision to the badge's status.
function statusOf(d) {
  if (d.revoked) return 'revoked';
  if (d.result.authentic) return d.anchored ? 'verified' : 'pending';
  // A non-authentic answer names no record of its own: what was found is
  // in resembles (an edited copy, a transplanted mark, a look-alike).
  if (d.match === 'none' || !(d.result.record_id || d.result.resembles)) return 'none';
  return 'altered';
}

function anchorView(a) {
  return a ? {tx: a.tx_hash, block: a.block_number, network: a.network || '', chain_id: a.chain_id || 0} : null;
}

// report asks the origin to count the verification for the signer (the
// web app's verify page, where someone chose to verify a file); badge
// views leave it unset so that they count for nobody.
async function verifyImage(ex, src, report) {
  const t0 = performance.now();
  const file = new Uint8Array(await (await fetchOK(src, {credentials: 'same-origin'})).arrayBuffer());
  const t1 = performance.now();
  // The local-signature probe (a thumbnail) stays in this worker: decide
  // needs it to compare the picture with the record's signed blocks, the
  // lookup never sees it.
  const {facts, local} = call(ex, 'analyze', file);
  const t2 = performance.now();
  // Facts only: hashes and the watermark payload, never the picture.
  const lookup = await (await fetchOK(base + '/api/v1/verify/lookup', {
    method: 'POST',
    credentials: 'omit',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify(report ? Object.assign({report: true}, facts) : facts),
  })).json();
  const t3 = performance.now();
  const d = callJSON(ex, 'decide', {facts, lookup, local});
  const t4 = performance.now();
  const cand = (lookup.candidates || []).find((c) => c.record_id === d.result.record_id);
  return {
    status: statusOf(d),
    result: d.result,
    match: d.match,
    rejected: d.rejected || [],
    anchor: d.result.authentic && cand ? anchorView(cand.anchor) : null,
    facts: {format: facts.format, width: facts.width, height: facts.height, bytes: file.length},
    timings: {fetch: t1 - t0, analyze: t2 - t1, lookup: t3 - t2, decide: t4 - t3},
  };
}

// verifyRecord badges an image whose bytes cannot be read (cross-origin
// without CORS) by its record id: the certificate's signature and Merkle
// proof are still checked here, but nothing ties the record to the
// picture, which the panel says.
async function verifyRecord(ex, id) {
  const cert = await (await fetchOK(base + '/api/v1/content-records/' + encodeURIComponent(id) + '/certificate', {
    credentials: 'omit',
    headers: {Accept: 'application/json'},
  })).json();
  const sig = callJSON(ex, 'verify_signature', {record: cert.record, signature_hex: cert.signature_hex});
  if (!sig.valid || sig.record_id !== cert.record_id) {
    throw new Error('the certificate of ' + id + ' does not verify: ' + (sig.detail || 'record id mismatch'));
  }
  let proof = null;
  if (cert.anchor) {
    proof = callJSON(ex, 'verify_proof', {record: cert.record, signature_hex: cert.signature_hex, anchor: cert.anchor});
  }
  const anchored = cert.blockchain_status === 'anchored' && proof && proof.valid;
  const status = cert.status === 'revoked' ? 'revoked' : anchored ? 'verified' : 'pending';
  const checks = {
    watermark: {passed: false, details: 'Not checked: the picture could not be read, only its record'},
    sha256: {passed: false, details: 'Not checked: the picture could not be read, only its record'},
    perceptual_hash: {passed: false, details: 'Not checked: the picture could not be read, only its record'},
    blockchain: {passed: !!anchored, details: anchored ? 'Merkle inclusion proof checked in this browser' : 'Not anchored yet'},
  };
  return {
    status,
    byRecord: true,
    result: {
      authentic: false,
      record_id: cert.record_id,
      signer: {org_name: sig.org_name, org_type: cert.org_type, key_name: cert.key_name, public_key: cert.signer_public_key},
      origin: {code: cert.origin_type, label: cert.origin_type},
      timestamp: cert.timestamp,
      blockchain_tx: cert.blockchain_tx || '',
      checks,
    },
    anchor: anchored ? anchorView(cert.anchor) : null,
  };
}

async function handle(m) {
  const ex = await load();
  if (m.op === 'analyze') {
    // Provenant.analyze: the facts of one file and how long analyze took
    // (the browser benchmark uses it; nothing is sent to the service).
    const file = new Uint8Array(await (await fetchOK(m.src, {credentials: 'same-origin'})).arrayBuffer());
    const runs = Math.max(1, Math.min(20, m.runs | 0));
    const ms = [];
    let facts;
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      facts = call(ex, 'analyze', file).facts;
      ms.push(performance.now() - t);
    }
    return {facts, ms};
  }
  if (m.src) {
    try {
      return await verifyImage(ex, m.src, m.report === true);
    } catch (e) {
      if (!m.record || e.code) throw e; // a module error is an answer, not a transport failure
    }
  }
  if (m.record) return verifyRecord(ex, m.record);
  throw new Error('nothing to verify');
}

self.onmessage = (e) => {
  const m = e.data;
  if (m.type === 'init') {
    base = m.base;
    return;
  }
  handle(m).then(
    (res) => self.postMessage(Object.assign({id: m.id}, res)),
    (err) => self.postMessage({id: m.id, status: 'error', error: String(err && err.message || err)}),
  );
};
