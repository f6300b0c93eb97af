// Provenant verifier worker. embed.js starts it from a blob: URL (a worker
// script must be same-origin with the page) and sends {type: "init",
// base, decoder}. Each request then names an image URL and/or a record id;
// the worker fetches the image itself and has the decoder measured fastest
// for it read it (moduleDecodes): the module's own for a sequential JPEG
// it decodes at reduced scale (analyze_hashed, the SHA-256 from
// crypto.subtle), the browser's for the rest (ImageDecoder's YUV planes
// for a JPEG, createImageBitmap at the reduced size verification reads,
// then OffscreenCanvas), whose pixels go to the verifier module, which
// computes the facts; without those APIs, or for a file the browser
// cannot decode the way the service does, the module decodes the bytes
// itself. It posts only the resulting facts to the lookup endpoint (never
// the image), and lets the module check every candidate's signature and
// Merkle proof and decide. A picture that
// carries a C2PA manifest also gets the C2PA module (fetched only then),
// which reads the manifest and decides its trust. docs/widget.md is the
// contract.
'use strict';

let base = '';
// decoderChoice is 'auto' (the decoder measured fastest for each picture:
// see moduleDecodes), 'browser' (the browser's decoder when it can),
// 'canvas' (the browser's, but not through WebCodecs) or 'wasm' (always
// the module's own), from the embed script's data-decoder.
let decoderChoice = 'auto';
const CHOICES = ['auto', 'browser', 'canvas', 'wasm'];
let modulePromise = null;
// manifestPromise is the origin's widget manifest (both modules' URLs);
// c2paPromise the C2PA module, loaded for the first picture that needs it.
let manifestPromise = null;
let c2paPromise = null;

const EBADF = 8;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

// wasiShim implements the wasi_snapshot_preview1 imports Go's wasip1
// runtime calls (the set is pinned by a test in wasm/wasmtest). The module
// reads no files and no environment; it needs a clock, randomness, a
// console for panics, and a scheduler that never blocks.
function wasiShim(ref, onExit) {
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
      onExit(); // the instance is dead; the next request loads a new one
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

function manifest() {
  if (!manifestPromise) {
    manifestPromise = fetchOK(base + '/api/v1/widget/manifest.json', {credentials: 'omit'}).then((r) => r.json());
    manifestPromise.catch(() => { manifestPromise = null; });
  }
  return manifestPromise;
}

// instantiate fetches, compiles and initialises the module at path (on
// the origin); onExit runs if it exits.
async function instantiate(path, onExit) {
  const url = new URL(path, base + '/').href;
  const ref = {};
  const imports = {wasi_snapshot_preview1: wasiShim(ref, onExit)};
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
}

// load fetches the manifest and the verifier module once; every request
// shares the instance (a worker runs one request at a time).
function load() {
  if (!modulePromise) {
    modulePromise = manifest().then((m) => instantiate(m.wasm, () => { modulePromise = null; }));
    modulePromise.catch(() => { modulePromise = null; });
  }
  return modulePromise;
}

// loadC2PA loads the C2PA module once, for the first picture that carries
// a manifest (the verifier module says "c2pa_manifest").
function loadC2PA() {
  if (!c2paPromise) {
    c2paPromise = manifest().then((m) => {
      if (!m.c2pa_wasm) throw new Error('this origin serves no C2PA module, and the picture carries a C2PA manifest');
      return instantiate(m.c2pa_wasm, () => { c2paPromise = null; });
    });
    c2paPromise.catch(() => { c2paPromise = null; });
  }
  return c2paPromise;
}

// c2paRead is the C2PA module's reading of the file's manifest (the facts'
// c2pa member), or null when it carries none after all.
async function c2paRead(file) {
  return call(await loadC2PA(), 'c2pa_read', file).c2pa;
}

// callWith has a module export read n bytes that fill writes into its
// memory (one copy in, one copy out) and parses its JSON answer.
function callWith(ex, name, n, fill) {
  const p = ex.alloc(n) >>> 0;
  // After alloc: growing the memory detaches earlier views of it.
  fill(new Uint8Array(ex.memory.buffer, p, n));
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
    // The module's detail names its internal packages; people read the
    // plain sentence, programs the stable code.
    const err = new Error(plainError(v.error.code));
    err.code = v.error.code;
    err.detail = v.error.detail || '';
    throw err;
  }
  return v;
}

// PLAIN says each module error code in words a reader of the badge or the
// verify page can act on.
const PLAIN = {
  unsupported_format: 'this kind of file cannot be checked here: the verifier reads JPEG, PNG, GIF and WebP pictures',
  image_too_large: 'the file is larger than the verifier accepts',
  invalid_image: 'the file is damaged, or is not the kind of picture its first bytes claim',
  bad_input: 'the verifier was given something it could not use',
};

// plainError is the message of a module error: the sentence and the code.
function plainError(code) {
  return (PLAIN[code] || 'the verifier could not read the file') + ' (' + (code || 'error') + ')';
}

// call passes input to a module export.
const call = (ex, name, input) => callWith(ex, name, input.length, (m) => m.set(input));

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

const canBitmap = typeof createImageBitmap === 'function' && typeof OffscreenCanvas === 'function';
const canImageDecoder = typeof ImageDecoder === 'function';
// A JPEG's luminance goes into the module whole, before reduction: above
// this many pixels the reduced RGBA path keeps the module's memory small.
const LUMA_MAX_PIXELS = 25e6;
const YUV_FORMATS = ['I420', 'I420A', 'I422', 'I444', 'NV12'];

const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

// sha256Hex is the SHA-256 of the exact bytes: the browser's digest when
// it has one (secure contexts), the module's otherwise.
async function sha256Hex(ex, file) {
  if (self.crypto && self.crypto.subtle) {
    try {
      return hex(new Uint8Array(await self.crypto.subtle.digest('SHA-256', file)));
    } catch (e) {
      // fall through to the module
    }
  }
  return call(ex, 'sha256', file).sha256;
}

// CHROMA_SIZE gives the chroma planes' size of a planar YUV frame of
// w×h; NV12's interleaved chroma is not sent.
const CHROMA_SIZE = {
  I420: (w, h) => [(w + 1) >> 1, (h + 1) >> 1],
  I420A: (w, h) => [(w + 1) >> 1, (h + 1) >> 1],
  I422: (w, h) => [(w + 1) >> 1, h],
  I444: (w, h) => [w, h],
};

// yuvPlanes packs a copied frame's planes without stride padding: the Y
// plane (w×h), then, for planar formats, the U (Cb) and V (Cr) planes,
// and says their size (cw×ch, 0×0 without chroma).
function yuvPlanes(buf, layout, format, w, h) {
  const size = CHROMA_SIZE[format];
  const [cw, ch] = size && layout.length >= 3 ? size(w, h) : [0, 0];
  const out = new Uint8Array(w * h + 2 * cw * ch);
  const copy = (plane, pw, ph, at) => {
    const {offset, stride} = layout[plane];
    for (let row = 0; row < ph; row++) out.set(buf.subarray(offset + row * stride, offset + row * stride + pw), at + row * pw);
  };
  copy(0, w, h, 0);
  if (cw > 0) {
    copy(1, cw, ch, w * h);
    copy(2, cw, ch, w * h + cw * ch);
  }
  return {pix: out, cw, ch};
}

// decodeLuma decodes a JPEG with the browser's decoder into its own YUV
// planes (WebCodecs ImageDecoder; no colour conversion at all) and returns
// the Y plane at the stored size, before orientation (the very samples
// the service's decoder reads, within its rounding), followed by the
// Cb and Cr planes when the frame is planar, so that colour signatures
// are compared in the browser too: {pix, cw, ch}. null when the browser
// cannot. steps gets the time of the decode and of the copy out (ms).
async function decodeLuma(file, info, choice, steps) {
  if (!canImageDecoder || choice === 'canvas' || info.format !== 'jpeg') return null;
  const turned = info.orientation >= 5;
  const w = turned ? info.height : info.width;
  const h = turned ? info.width : info.height;
  if (w * h > LUMA_MAX_PIXELS) return null;
  let dec = null;
  let frame = null;
  try {
    const t0 = performance.now();
    dec = new ImageDecoder({data: file, type: 'image/jpeg', colorSpaceConversion: 'none'});
    frame = (await dec.decode({frameIndex: 0})).image;
    const t1 = performance.now();
    steps.imagedecoder = t1 - t0;
    const r = frame.visibleRect;
    // A decoder that turned the picture itself would change its size.
    if (!YUV_FORMATS.includes(frame.format) || r.width !== w || r.height !== h) return null;
    const buf = new Uint8Array(frame.allocationSize());
    const layout = await frame.copyTo(buf);
    steps.frame_copy = performance.now() - t1;
    return yuvPlanes(buf, layout, frame.format, w, h);
  } catch (e) {
    return null;
  } finally {
    if (frame) frame.close();
    if (dec) dec.close();
  }
}

// decodePixels decodes file with the browser's decoder at the module's
// plane size, EXIF orientation applied and no colour management (the
// service applies none), and returns its RGBA. null when the browser
// cannot.
async function decodePixels(file, info) {
  if (!canBitmap) return null;
  const w = info.plane_width;
  const h = info.plane_height;
  let bmp;
  try {
    bmp = await createImageBitmap(new Blob([file], {type: 'image/' + info.format}), {
      imageOrientation: 'from-image',
      colorSpaceConversion: 'none',
      premultiplyAlpha: 'none',
      resizeWidth: w,
      resizeHeight: h,
      // Mipmapped bilinear: an area average at the 1/2, 1/4 and 1/8
      // reductions, as the module's decoder gives.
      resizeQuality: 'medium',
    });
  } catch (e) {
    return null;
  }
  try {
    if (bmp.width !== w || bmp.height !== h) return null;
    const g = new OffscreenCanvas(w, h).getContext('2d', {willReadFrequently: true});
    if (!g) return null;
    g.drawImage(bmp, 0, 0);
    return g.getImageData(0, 0, w, h).data;
  } catch (e) {
    return null;
  } finally {
    bmp.close();
  }
}

// analyzePixels hands decoded pixels to the module.
function analyzePixels(ex, head, pixels) {
  const h = encoder.encode(JSON.stringify(head));
  return callWith(ex, 'analyze_pixels', 4 + h.length + pixels.length, (m) => {
    new DataView(m.buffer, m.byteOffset, 4).setUint32(0, h.length, true);
    m.set(h, 4);
    m.set(pixels, 4 + h.length);
  });
}

// analyzeWhole is the module's analyze of the file, its own decoder
// reading it, with the SHA-256 taken by crypto.subtle over these very
// bytes and handed in (analyze_hashed): in the module the hash costs
// ~100 times what the browser's does. Without a digest (not a secure
// context) or without the export, the module hashes the file itself.
async function analyzeWhole(ex, file, steps) {
  if (typeof ex.analyze_hashed === 'function' && self.crypto && self.crypto.subtle) {
    let sum = null;
    const t = performance.now();
    try {
      sum = new Uint8Array(await self.crypto.subtle.digest('SHA-256', file));
    } catch (e) {
      // the module's own hash below
    }
    steps.sha256 = performance.now() - t;
    if (sum && sum.length === 32) {
      return callWith(ex, 'analyze_hashed', 32 + file.length, (m) => {
        m.set(sum, 0);
        m.set(file, 32);
      });
    }
  }
  return call(ex, 'analyze', file);
}

// jpegFrame is the start-of-frame marker of a JPEG (0xc0 baseline, 0xc1
// extended sequential, 0xc2 progressive, …), read from the markers before
// the first scan; 0 when file is not a JPEG or has no frame header there.
function jpegFrame(file) {
  if (file.length < 4 || file[0] !== 0xff || file[1] !== 0xd8) return 0;
  let p = 2;
  while (p + 4 <= file.length) {
    if (file[p] !== 0xff) return 0;
    const m = file[p + 1];
    if (m === 0xff) { p++; continue; } // fill byte
    if (m === 0x01 || (m >= 0xd0 && m <= 0xd7)) { p += 2; continue; } // no length
    if (m === 0xda || m === 0xd9) return 0; // a scan or the end before any frame
    if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) return m;
    p += 2 + ((file[p + 2] << 8) | file[p + 3]);
  }
  return 0;
}

// moduleDecodes says whether the module's own decoder reads file, which
// inspect described as info, under choice 'auto'. It takes the decoder
// measured fastest in Chromium (bench/README.md, "The module's decoder for
// JPEGs in the browser"): the module's for a sequential JPEG that it
// decodes at reduced scale (a short side of 1,023 pixels or more: 1/2 at
// 4 MP, 1/4 at 12 MP), where ImageDecoder decodes every sample of every
// plane at full size, the frame is copied out and the module then reduces
// it; the module's facts are also the origin's own, member for member.
// The browser's for the rest: a smaller JPEG, which the module decodes
// whole and the browser faster; a progressive one, whose every scan the
// module's decoder reads without its block kernel; PNG (the module's
// decoder for it is the standard library's, at full size). A GIF never
// gets here: inspect answers host_decode false for it.
function moduleDecodes(file, info) {
  if (info.format !== 'jpeg' || info.plane_width >= info.width) return false;
  const sof = jpegFrame(file);
  return sof === 0xc0 || sof === 0xc1;
}

// analyzeFile returns the module's analyze answer for file ({facts,
// local}), which decoder read the pixels ('browser' or 'wasm'), in which
// form ('luma', 'rgba' or 'file'), how long each step took (ms), and
// whether the file may carry a C2PA manifest that was left unread
// (manifest). With readC2PA the C2PA module reads such a manifest into
// the facts (fetched beside the decode); without it the manifest is left
// to the lookup, which answers it for the service's own signed output
// (see verifyImage).
async function analyzeFile(ex, file, choice, readC2PA) {
  const steps = {};
  let t = performance.now();
  const lap = (name) => {
    const now = performance.now();
    steps[name] = now - t;
    t = now;
  };
  let unread = false;
  const done = (out, decoder, pixels) => Object.assign(out, {decoder, pixels, steps, manifest: unread});
  if (choice !== 'wasm' && (canImageDecoder || canBitmap)) {
    // inspect reads the header under the module's limits: a file too
    // large is refused before anything decodes it.
    const info = call(ex, 'inspect', file);
    lap('inspect');
    if (info.host_decode && !(choice === 'auto' && moduleDecodes(file, info))) {
      const sum = sha256Hex(ex, file); // runs beside the decode
      // The manifest is in the bytes, which the pixels cannot carry: the
      // C2PA module (fetched now, beside the decode) reads it, or the
      // lookup answers it.
      unread = info.c2pa_manifest && !readC2PA;
      const c2pa = info.c2pa_manifest && readC2PA ? c2paRead(file) : Promise.resolve(null);
      c2pa.catch(() => {});
      const head = {format: info.format, width: info.width, height: info.height};
      const withC2PA = async () => {
        const c = await c2pa;
        if (c) head.c2pa = c;
        lap('c2pa');
      };
      const y = await decodeLuma(file, info, choice, steps);
      lap('decode_luma');
      if (y) {
        head.sha256 = await sum;
        lap('sha256');
        await withC2PA();
        const planes = {pixels: 'luma', orientation: info.orientation};
        if (y.cw > 0) Object.assign(planes, {chroma_width: y.cw, chroma_height: y.ch});
        const out = analyzePixels(ex, Object.assign(head, planes), y.pix);
        lap('analyze_pixels');
        return done(out, 'browser', 'luma');
      }
      const rgba = await decodePixels(file, info);
      lap('decode_rgba');
      if (rgba) {
        head.sha256 = await sum;
        lap('sha256');
        await withC2PA();
        const out = analyzePixels(ex, head, rgba);
        lap('analyze_pixels');
        return done(out, 'browser', 'rgba');
      }
      await sum.catch(() => {});
    }
  }
  const out = await analyzeWhole(ex, file, steps);
  lap('analyze');
  unread = out.c2pa_manifest && !readC2PA;
  if (out.c2pa_manifest && readC2PA) {
    const c = await c2paRead(file);
    if (c) out.facts.c2pa = c;
    lap('c2pa');
  }
  return done(out, 'wasm', 'file');
}

// report asks the origin to count the verification for the signer (the
// web app's verify page, where someone chose to verify a file); badge
// views leave it unset so that they count for nobody.
async function verifyImage(ex, fetched, report) {
  const t0 = performance.now();
  const file = await fetched;
  const t1 = performance.now();
  // The local-signature probe (a thumbnail) stays in this worker: decide
  // needs it to compare the picture with the record's signed blocks, the
  // lookup never sees it.
  //
  // A picture that carries a C2PA manifest: the lookup says whether it is
  // byte for byte the service's own signed output, and then answers the
  // manifest's c2pa member itself, read from the bytes it signed; only
  // another picture's manifest needs the C2PA module. A verification
  // the origin counts (report) reads the manifest first, so that it is
  // looked up, and counted, once.
  const {facts, local, decoder: used, pixels, manifest} = await analyzeFile(ex, file, decoderChoice, report);
  const t2 = performance.now();
  // Facts only: hashes and the watermark payload, never the picture.
  const lookupFacts = async (extra) => (await fetchOK(base + '/api/v1/verify/lookup', {
    method: 'POST',
    credentials: 'omit',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify(Object.assign({}, extra, facts)),
  })).json();
  let lookup = await lookupFacts(report ? {report: true} : manifest ? {c2pa_manifest: true} : {});
  const t3 = performance.now();
  let d = callJSON(ex, 'decide', {facts, lookup, local});
  if (manifest && !d.result.c2pa) {
    // Not the service's own signed output: the C2PA module reads the
    // manifest. A valid one naming a record adds that record to the
    // candidates, so the lookup is asked again with it.
    const c = await c2paRead(file);
    if (c) {
      facts.c2pa = c;
      if (c.validation_state === 'valid' && c.record_id) {
        lookup = await lookupFacts({});
        d = callJSON(ex, 'decide', {facts, lookup, local});
      }
    }
  }
  if (facts.c2pa) {
    // The manifest's trust takes X.509, which only the C2PA module carries.
    d.result.c2pa = callJSON(await loadC2PA(), 'c2pa_member', {c2pa: facts.c2pa, ca: lookup.c2pa_ca || ''}).c2pa;
  }
  const t4 = performance.now();
  const cand = (lookup.candidates || []).find((c) => c.record_id === d.result.record_id);
  return {
    status: statusOf(d),
    result: d.result,
    presentation: presentOf(ex, d.result, false),
    match: d.match,
    rejected: d.rejected || [],
    anchor: d.result.authentic && cand ? anchorView(cand.anchor) : null,
    facts: {format: facts.format, width: facts.width, height: facts.height, bytes: file.length},
    decoder: used,
    pixels,
    timings: {fetch: t1 - t0, analyze: t2 - t1, lookup: t3 - t2, decide: t4 - t3},
  };
}

// verifyRecord badges an image whose bytes cannot be read (cross-origin
// without CORS) by its record id. The certificate's signature and Merkle
// proof are still checked here, but nothing ties the record to the
// picture: anyone can put any record id on any <img>. So the answer is
// never "verified": it is the neutral status 'record' ("record only, this
// picture was not checked"), or 'revoked' when the record (or its signing
// key, per the service's decision in the certificate) is revoked, which is
// bad news whatever the picture.
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
  const anchored = cert.blockchain_status === 'anchored' && !!(proof && proof.valid);
  const keyRev = cert.signing_key_revocation || null;
  const keyRevoked = !!keyRev && keyRev.decision !== 'valid';
  const status = cert.status === 'revoked' || keyRevoked ? 'revoked' : 'record';
  const unread = 'this page could not read the picture, only its record';
  const checks = {
    watermark: {passed: false, not_applicable: true, details: unread},
    sha256: {passed: false, not_applicable: true, details: unread},
    perceptual_hash: {passed: false, not_applicable: true, details: unread},
    blockchain: anchored
      ? {passed: true, details: 'The record\'s Merkle inclusion proof was checked in this browser'}
      : {passed: false, not_applicable: true, details: 'The record is signed; anchoring on chain is pending'},
  };
  const result = {
    authentic: false,
    record_id: cert.record_id,
    signer: {org_name: sig.org_name, org_type: cert.org_type, key_name: cert.key_name, public_key: cert.signer_public_key},
    origin: {code: cert.origin_type, label: cert.origin_type},
    timestamp: cert.timestamp,
    blockchain_tx: cert.blockchain_tx || '',
    // Which chain: the words of the anchoring check depend on it.
    network: cert.network || undefined,
    checks,
  };
  return {
    status,
    byRecord: true,
    presentation: presentOf(ex, result, true),
    recordAnchored: anchored,
    keyRevocation: keyRev,
    result,
    anchor: anchored ? anchorView(cert.anchor) : null,
  };
}

// presentOf is the verdict in the words every surface uses (the module's
// present export, shared/present): headline, tone, explanation, the
// checks' tri-state, the chain. recordOnly: only the record was checked,
// not the picture.
function presentOf(ex, result, recordOnly) {
  return callJSON(ex, 'present', {verify: result, record_only: recordOnly}).presentation;
}

// fetchBytes reads a picture's bytes (same-origin credentials, as the
// page's own <img> request).
async function fetchBytes(src) {
  return new Uint8Array(await (await fetchOK(src, {credentials: 'same-origin'})).arrayBuffer());
}

async function handle(m) {
  // The picture is fetched while the module loads (the first request of
  // a page) instead of after it; its failure is handled where it is
  // awaited.
  const fetched = m.src && m.op !== 'analyze' ? fetchBytes(m.src) : null;
  if (fetched) fetched.catch(() => {});
  const ex = await load();
  if (m.op === 'present') {
    // The web app's server path: an answer of POST /api/v1/verify, said
    // in the same words as one computed here.
    return {presentation: presentOf(ex, m.verify, false)};
  }
  if (m.op === 'analyze') {
    // Provenant.analyze: the facts of one file, the decoder that read it
    // and how long analyze took, decode included (the browser benchmark
    // uses it; nothing is sent to the service). m.decoder 'wasm' forces
    // the module's decoder.
    const file = new Uint8Array(await (await fetchOK(m.src, {credentials: 'same-origin'})).arrayBuffer());
    const runs = Math.max(1, Math.min(20, m.runs | 0));
    const ms = [];
    const steps = [];
    let out;
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      out = await analyzeFile(ex, file, m.decoder || decoderChoice, true);
      ms.push(performance.now() - t);
      steps.push(out.steps);
    }
    return {facts: out.facts, decoder: out.decoder, pixels: out.pixels, ms, steps};
  }
  if (m.src) {
    try {
      return await verifyImage(ex, fetched, m.report === true);
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
    decoderChoice = CHOICES.includes(m.decoder) ? m.decoder : 'auto';
    // Start fetching and compiling the module now: the first request
    // follows at once, but its picture is being fetched meanwhile.
    load().catch(() => {});
    return;
  }
  handle(m).then(
    (res) => self.postMessage(Object.assign({id: m.id}, res)),
    (err) => self.postMessage({id: m.id, status: 'error', error: String(err && err.message || err), code: (err && err.code) || ''}),
  );
};
