// Provenant web app. Every page is rendered by the server; this script
// fills the account pages from the public API (authenticated by the
// session cookie, with the page's CSRF token on writes) and runs the
// public verifier through the widget's worker. No framework, no build.
'use strict';
(function () {
  const csrfMeta = document.querySelector('meta[name="csrf-token"]');
  const csrf = csrfMeta ? csrfMeta.content : '';
  const $ = (sel, root) => (root || document).querySelector(sel);
  const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));

  // el builds an element; children are nodes or text (never parsed as HTML).
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  const fmtTime = (s) => {
    if (!s) return '–';
    const d = new Date(s);
    return isNaN(d) ? s : d.toISOString().replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');
  };
  const short = (s, n) => (s && s.length > (n || 12) ? s.slice(0, n || 12) + '…' : s || '');

  // ApiError carries an RFC 9457 problem from the API.
  class ApiError extends Error {
    constructor(status, problem) {
      super((problem && (problem.detail || problem.title)) || 'The request failed (' + status + ')');
      this.status = status;
      this.problem = problem || {};
    }
  }

  function sessionGone(status, problem) {
    // A page with a session whose token stopped working: say so clearly.
    if (status === 401 && csrf && problem && problem.code !== 'invalid_credentials') {
      location.assign('/session-expired');
      return true;
    }
    return false;
  }

  // api calls the public API as the signed-in account.
  async function api(method, path, opts) {
    opts = opts || {};
    const headers = {Accept: 'application/json'};
    let body;
    if (opts.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(opts.json);
    }
    if (method !== 'GET' && method !== 'HEAD') headers['X-CSRF-Token'] = csrf;
    const r = await fetch(path, {method, headers, body, credentials: 'same-origin', cache: 'no-store'});
    const text = await r.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
    if (!r.ok) {
      if (sessionGone(r.status, data)) throw new ApiError(r.status, data);
      throw new ApiError(r.status, data);
    }
    return data;
  }

  // showError puts err's human message in box and marks the field it
  // names in form (aria-invalid, focused).
  function showError(box, err, form) {
    if (form) $$('[aria-invalid]', form).forEach((f) => f.removeAttribute('aria-invalid'));
    const msg = err instanceof ApiError ? err.message : 'Something went wrong: ' + (err && err.message || err);
    box.replaceChildren(el('div', {class: 'alert error', role: 'alert'}, msg));
    if (form && err instanceof ApiError) {
      const fields = (err.problem.errors || []).map((e) => e.field);
      if (err.problem.field) fields.unshift(err.problem.field);
      let first = null;
      for (const name of fields) {
        const f = form.elements[name];
        const input = f && (f.length && !f.tagName ? f[0] : f);
        if (input && input.setAttribute) {
          input.setAttribute('aria-invalid', 'true');
          first = first || input;
        }
      }
      if (first) first.focus();
    }
  }
  function showOK(box, msg) {
    box.replaceChildren(el('div', {class: 'alert ok', role: 'status'}, msg));
  }

  async function copy(input, button) {
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
    } catch (e) {
      document.execCommand('copy');
    }
    button.textContent = 'Copied';
    setTimeout(() => { button.textContent = 'Copy'; }, 2000);
  }

  // dropZone wires drag and drop on zone to onFiles (the file input
  // inside it works on its own).
  function dropZone(zone, onFiles) {
    zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
    zone.addEventListener('dragleave', () => zone.classList.remove('over'));
    zone.addEventListener('drop', (e) => {
      e.preventDefault();
      zone.classList.remove('over');
      if (e.dataTransfer && e.dataTransfer.files.length) onFiles(Array.from(e.dataTransfer.files));
    });
  }

  const statusBadge = (s) => el('span', {class: 'tag tag-' + (s || 'none')}, s || '–');

  // Words for the API's codes (the server renders the table into the
  // page): a list shows "Camera photo", never camera_image.
  const labels = (() => {
    try { return JSON.parse($('#labels').textContent) || {}; } catch (e) { return {}; }
  })();
  const originLabel = (code) => ((labels.origin_types || {})[code]) || code || '–';
  const orgTypeLabel = (code) => ((labels.org_types || {})[code]) || code || '';

  // hashValue shows a long value (hash, id, transaction) on one line, cut
  // with an ellipsis where it does not fit, the whole value in its title
  // and a button that copies it.
  function hashValue(v, what) {
    const code = el('code', {class: 'hash', title: v}, v);
    const b = el('button', {type: 'button', class: 'copy secondary', 'aria-label': 'Copy ' + (what || 'the value')}, 'Copy');
    b.addEventListener('click', async () => {
      try { await navigator.clipboard.writeText(v); } catch (e) {
        const r = document.createRange(); r.selectNodeContents(code);
        const sel = getSelection(); sel.removeAllRanges(); sel.addRange(r); document.execCommand('copy');
      }
      b.textContent = 'Copied';
      setTimeout(() => { b.textContent = 'Copy'; }, 2000);
    });
    return el('span', {class: 'hashbox'}, code, b);
  }
  // Long values already in a server-rendered page (data-copy) get the
  // same copy button.
  function copyButtons(root) {
    $$('code.hash[data-copy]', root).forEach((c) => c.replaceWith(hashValue(c.textContent, c.closest('dd') && c.closest('dd').previousElementSibling ? c.closest('dd').previousElementSibling.textContent : '')));
  }

  // thumb is a record's preview (its owner's only), or a placeholder.
  const thumb = (r, alt) => r.thumbnail_url
    ? el('img', {class: 'thumb', src: r.thumbnail_url, alt: alt || '', loading: 'lazy', width: 56, height: 56})
    : el('span', {class: 'thumb none', 'aria-hidden': 'true'}, 'no preview');

  // ---- look, don't read ------------------------------------------------

  const SVGNS = 'http://www.w3.org/2000/svg';
  const svgEl = (tag, attrs) => {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    return e;
  };
  const pct = (x) => Math.round(x * 1000) / 10;

  // evidence draws the picture checked (src) with what the verdict found
  // on it, from the geometry of the verify answer res: the signed
  // picture's blocks found changed, outlined (edited); where a crop sits
  // in the signed picture, the part cut away hatched (crop); the
  // surroundings added around the signed picture, shaded (contained).
  // Otherwise the picture alone. Returns a figure, or null without src.
  function evidence(src, res) {
    if (!src) return null;
    const img = el('img', {src, alt: 'The picture checked'});
    const cap = el('figcaption', {});
    const keys = el('ul', {class: 'legend-keys'});
    const key = (cls, text) => keys.append(el('li', {}, el('span', {class: cls, 'aria-hidden': 'true'}), text));
    const fig = el('figure', {'data-overlay': 'none'});
    const match = res && res.match;
    const region = res && res.region;
    const blocks = res && res.changed_blocks;
    const contained = res && res.contained;
    if (match === 'crop' && region && region.w > 0 && region.h > 0) {
      // The frame is the signed picture; the copy sits where it was cut.
      const frame = el('div', {class: 'frame', role: 'img',
        'aria-label': `This copy shows ${pct(region.w * region.h)} % of the signed picture; the hatched part was cut away.`});
      img.alt = '';
      Object.assign(img.style, {left: pct(region.x) + '%', top: pct(region.y) + '%', width: pct(region.w) + '%', height: pct(region.h) + '%'});
      frame.append(img);
      const size = () => {
        const W = img.naturalWidth / region.w, H = img.naturalHeight / region.h;
        if (!W || !H) return;
        frame.style.aspectRatio = W + ' / ' + H;
        frame.style.width = 'min(100%, calc(70vh * ' + (W / H).toFixed(4) + '))';
      };
      img.addEventListener('load', size);
      if (img.complete) size();
      fig.append(frame);
      fig.dataset.overlay = 'crop';
      cap.textContent = `Where this copy sits in the signed picture: it shows ${pct(region.w * region.h)} % of it, from ${pct(region.x)} % across and ${pct(region.y)} % down.`;
      key('k-vouched', 'this copy');
      key('k-cut', 'cut away from the signed picture');
    } else {
      const box = el('div', {class: 'pic'}, img);
      const svg = svgEl('svg', {viewBox: '0 0 100 100', preserveAspectRatio: 'none', 'aria-hidden': 'true'});
      if (match === 'contained' && contained && contained.region) {
        const c = contained.region;
        const x = c.x * 100, y = c.y * 100, w = c.w * 100, h = c.h * 100;
        svg.append(svgEl('path', {class: 'added', 'fill-rule': 'evenodd', d: `M0 0H100V100H0Z M${x} ${y}V${y + h}H${x + w}V${y}Z`}));
        svg.append(svgEl('rect', {class: 'vouched', x, y, width: w, height: h, 'vector-effect': 'non-scaling-stroke'}));
        fig.dataset.overlay = 'contained';
        const un = typeof contained.unvouched_fraction === 'number' ? pct(contained.unvouched_fraction) : null;
        cap.textContent = 'Shaded: the surroundings added around the signed picture' + (un !== null ? ` (${un} % of this file)` : '') +
          ', which the signature does not vouch for. Outlined: the signed picture.';
        key('k-added', 'added, not vouched for');
        key('k-vouched', 'the signed picture');
      } else if (blocks && blocks.cols > 0 && blocks.rows > 0 && (blocks.cells || []).length) {
        // Blocks are cells of the signed picture; the file may show only
        // part of it (region), so map them into the file's frame.
        const r = region && region.w > 0 && region.h > 0 ? region : {x: 0, y: 0, w: 1, h: 1};
        for (const cell of blocks.cells) {
          const bx = (cell % blocks.cols) / blocks.cols, by = Math.floor(cell / blocks.cols) / blocks.rows;
          svg.append(svgEl('rect', {class: 'changed', 'data-cell': cell, x: ((bx - r.x) / r.w) * 100, y: ((by - r.y) / r.h) * 100,
            width: (1 / blocks.cols / r.w) * 100, height: (1 / blocks.rows / r.h) * 100, 'vector-effect': 'non-scaling-stroke'}));
        }
        fig.dataset.overlay = 'edited';
        const n = blocks.cells.length, total = blocks.cols * blocks.rows;
        cap.textContent = `Outlined: the ${n} of ${total} parts of the signed picture that differ in this copy.`;
        key('k-changed', 'changed since signing');
      } else {
        cap.textContent = 'The picture checked.';
      }
      if (svg.childNodes.length) box.append(svg);
      fig.append(box);
    }
    fig.append(cap);
    if (keys.children.length) fig.append(keys);
    return fig;
  }

  // timeline shows a provenance chain (oldest first) as a short list of
  // dated steps; current is the record the page is about.
  const relationWords = {original: 'signed first', derivative: 'signed as a derivative', resigned_copy: 're-signed a copy', earlier_match: 'signed an earlier match'};
  function timeline(ol, chain, current) {
    ol.replaceChildren(...(chain || []).map((c) => el('li', {class: (c.relation || '') + (c.record_id === current ? ' current' : '')},
      el('span', {class: 'when'}, fmtTime(c.created_at)),
      el('span', {class: 'what'}, el('strong', {}, c.org_name || 'Unknown signer'), ' ', relationWords[c.relation] || c.relation || '',
        c.status === 'revoked' ? ' (revoked)' : '', c.record_id === current ? ' — this record' : ''),
      el('a', {class: 'hint', href: '/api/v1/content-records/' + encodeURIComponent(c.record_id) + '/certificate'}, 'certificate'))));
    return ol.children.length > 0;
  }

  // ---- overview ------------------------------------------------------

  function chart(box, days) {
    const NS = 'http://www.w3.org/2000/svg';
    const svgEl = (tag, attrs, text) => {
      const e = document.createElementNS(NS, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      if (text !== undefined) e.textContent = text;
      return e;
    };
    if (!days || !days.length) {
      box.replaceChildren(el('p', {class: 'hint'}, 'No daily figures yet.'));
      return;
    }
    const W = 720, H = 220, pad = {l: 36, r: 8, t: 12, b: 28};
    const max = Math.max(1, ...days.map((d) => Math.max(d.signed, d.verified || 0)));
    const bw = (W - pad.l - pad.r) / days.length;
    const y = (v) => H - pad.b - (v / max) * (H - pad.t - pad.b);
    const total = days.reduce((a, d) => a + d.signed, 0);
    const totalV = days.reduce((a, d) => a + (d.verified || 0), 0);
    const svg = svgEl('svg', {viewBox: `0 0 ${W} ${H}`, role: 'img', class: 'chart-svg',
      'aria-label': `${total} records signed and ${totalV} verifications in the last ${days.length} days`});
    for (const t of [0, Math.ceil(max / 2), max]) {
      svg.append(svgEl('line', {x1: pad.l, x2: W - pad.r, y1: y(t), y2: y(t), class: 'grid'}));
      svg.append(svgEl('text', {x: pad.l - 6, y: y(t) + 4, 'text-anchor': 'end', class: 'axis'}, String(t)));
    }
    days.forEach((d, i) => {
      const x = pad.l + i * bw;
      const r = svgEl('rect', {x: x + 1, y: y(d.signed), width: Math.max(1, bw - 2), height: H - pad.b - y(d.signed), class: 'bar'});
      r.append(svgEl('title', {}, `${d.date}: ${d.signed} signed, ${d.verified || 0} verifications`));
      svg.append(r);
      if ((days.length - 1 - i) % 7 === 0) {
        svg.append(svgEl('text', {x: x + bw / 2, y: H - 8, 'text-anchor': 'middle', class: 'axis'}, d.date.slice(5)));
      }
    });
    if (days.some((d) => d.verified !== undefined)) {
      const pts = days.map((d, i) => `${pad.l + i * bw + bw / 2},${y(d.verified || 0)}`).join(' ');
      svg.append(svgEl('polyline', {points: pts, class: 'line'}));
    }
    const legend = el('p', {class: 'legend'}, el('span', {class: 'key key-bar'}), ' records signed  ',
      el('span', {class: 'key key-line'}), ' verifications');
    box.replaceChildren(svg, legend);
  }

  async function overview() {
    const msg = $('#msg');
    try {
      const s = await api('GET', '/api/v1/dashboard/stats');
      $$('[data-stat]').forEach((dd) => { dd.textContent = String(s[dd.dataset.stat] ?? 0); });
      chart($('#chart'), s.daily);
      const tb = $('#recent tbody');
      tb.replaceChildren(...(s.recent_records || []).map((r) => el('tr', {},
        el('td', {}, thumb(r)),
        el('td', {class: 'namecell'}, el('a', {href: '/records/' + encodeURIComponent(r.id)}, r.original_filename || 'Record ' + short(r.id, 8)),
          el('code', {class: 'hash', title: r.id}, r.id)),
        el('td', {}, fmtTime(r.created_at)),
        el('td', {}, statusBadge(r.blockchain_tx ? 'anchored' : 'pending')))));
      if (!tb.children.length) tb.append(el('tr', {}, el('td', {colspan: 4}, 'No records yet. ', el('a', {href: '/sign'}, 'Sign a file'))));
    } catch (e) {
      showError(msg, e);
    }
  }

  // ---- sign ----------------------------------------------------------

  // upload sends one file to POST /api/v1/sign with progress, and resolves
  // to {blob, name, recordId} or rejects with an ApiError.
  function upload(file, keyId, onProgress) {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', '/api/v1/sign?signing_key_id=' + encodeURIComponent(keyId) + '&return_file=true');
      xhr.responseType = 'blob';
      xhr.setRequestHeader('X-CSRF-Token', csrf);
      xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded / e.total); };
      xhr.onerror = () => reject(new Error('the connection failed'));
      xhr.onload = async () => {
        if (xhr.status === 201) {
          const cd = xhr.getResponseHeader('Content-Disposition') || '';
          const m = /filename="?([^";]+)"?/.exec(cd);
          resolve({blob: xhr.response, name: m ? m[1] : 'signed', recordId: xhr.getResponseHeader('X-Record-Id')});
          return;
        }
        let p = null;
        try { p = JSON.parse(await xhr.response.text()); } catch (e) { p = null; }
        sessionGone(xhr.status, p);
        reject(new ApiError(xhr.status, p));
      };
      const fd = new FormData();
      fd.append('file', file, file.name);
      xhr.send(fd);
    });
  }

  async function sign() {
    const msg = $('#msg');
    const sel = $('#signing_key_id');
    try {
      const ks = await api('GET', '/api/v1/keys/signing-keys');
      // A device key's private half stays on its device: the service
      // cannot sign with it.
      const items = (ks.items || []).filter((k) => !k.revoked_at && k.custody !== 'device');
      sel.replaceChildren(...items.map((k) => el('option', {value: k.id}, `${k.name} (${originLabel(k.origin_type)})`)));
      if (!items.length) {
        sel.append(el('option', {value: ''}, 'No signing key'));
        $('#nokey').hidden = false;
      }
    } catch (e) {
      showError(msg, e);
    }
    const results = $('#results');
    let queue = Promise.resolve();
    const signFiles = (files) => {
      if (!sel.value) {
        showError(msg, new ApiError(400, {detail: 'Choose a signing key first.', field: 'signing_key_id'}), $('#sign-form'));
        return;
      }
      msg.replaceChildren();
      for (const f of files) {
        const bar = el('progress', {max: 1, value: 0, 'aria-label': 'Upload of ' + f.name});
        const state = el('span', {class: 'state'}, 'waiting');
        const li = el('li', {class: 'result'}, el('strong', {}, f.name), ' ', bar, ' ', state);
        // In the order chosen, as they are signed (the queue is FIFO).
        results.append(li);
        const key = sel.value;
        queue = queue.then(async () => {
          state.textContent = 'uploading';
          try {
            const res = await upload(f, key, (x) => { bar.value = x; });
            bar.value = 1;
            const url = URL.createObjectURL(res.blob);
            li.dataset.recordId = res.recordId;
            li.classList.add('done');
            state.replaceChildren(el('span', {class: 'tag tag-active'}, 'signed'), ' ',
              el('a', {href: url, download: res.name, class: 'download'}, 'Download ' + res.name), ' · ',
              el('a', {href: '/records/' + encodeURIComponent(res.recordId), 'aria-label': 'Record of ' + f.name}, 'Record'), ' · ',
              el('a', {href: '/api/v1/content-records/' + encodeURIComponent(res.recordId) + '/certificate', 'aria-label': 'Certificate of ' + f.name}, 'Certificate'));
          } catch (e) {
            li.classList.add('failed');
            state.replaceChildren(el('span', {class: 'tag tag-revoked'}, 'failed'), ' ', e.message);
          }
        });
      }
    };
    $('#files').addEventListener('change', (e) => { signFiles(Array.from(e.target.files)); e.target.value = ''; });
    dropZone($('#drop'), signFiles);
  }

  // ---- records -------------------------------------------------------

  async function records() {
    const msg = $('#msg');
    const form = $('#filters');
    const tb = $('#records tbody');
    let next = '';
    const load = async (cursor) => {
      const q = new URLSearchParams();
      for (const [k, v] of new FormData(form)) if (v) q.set(k, v);
      q.set('limit', '20');
      if (cursor) q.set('cursor', cursor);
      try {
        const page = await api('GET', '/api/v1/content-records?' + q);
        msg.replaceChildren();
        tb.replaceChildren(...(page.items || []).map((r) => el('tr', {'data-id': r.id},
          el('td', {}, thumb(r)),
          el('td', {class: 'namecell'}, el('a', {href: '/records/' + encodeURIComponent(r.id)}, r.original_filename || 'Record ' + short(r.id, 8)),
            el('code', {class: 'hash', title: r.id}, r.id)),
          el('td', {title: r.origin_type}, originLabel(r.origin_type)),
          el('td', {}, fmtTime(r.created_at)),
          el('td', {}, statusBadge(r.blockchain_status)),
          el('td', {}, statusBadge(r.status)),
          el('td', {}, r.download_url ? el('a', {href: r.download_url, download: '', class: 'download', 'aria-label': 'Download the signed file ' + (r.original_filename || r.id)}, 'Download') : ''))));
        if (!tb.children.length) tb.append(el('tr', {}, el('td', {colspan: 7}, 'No records match.')));
        next = page.next_cursor || '';
        $('#more').hidden = !next;
        $('#first').hidden = !cursor;
      } catch (e) {
        showError(msg, e, form);
      }
    };
    form.addEventListener('submit', (e) => { e.preventDefault(); load(''); });
    $('#more').addEventListener('click', () => load(next));
    $('#first').addEventListener('click', () => load(''));
    load('');
  }

  async function recordPage() {
    const msg = $('#msg');
    const id = $('#rid').dataset.id;
    const kv = (dl, rows) => dl.replaceChildren(...rows.filter((r) => r[1] !== undefined && r[1] !== '').flatMap(([k, v]) =>
      [el('dt', {}, k), el('dd', {}, typeof v === 'string' && /^(0x)?[0-9a-f]{32,}$/.test(v) ? hashValue(v, k) : v)]));
    const load = async () => {
      try {
        const r = await api('GET', '/api/v1/content-records/' + encodeURIComponent(id));
        if (r.original_filename) $('#record-title').textContent = r.original_filename;
        $('#picture').replaceChildren(r.thumbnail_url ? el('img', {class: 'record-pic', src: r.thumbnail_url, alt: 'Preview of the signed picture ' + (r.original_filename || '')}) : '');
        const dl = $('#download');
        if (r.download_url) {
          dl.href = r.download_url;
          dl.hidden = false;
        }
        kv($('#details'), [
          ['Status', statusBadge(r.status)], ['Revoked at', r.revoked_at ? fmtTime(r.revoked_at) : ''],
          ['Reason', r.revoked_reason || ''], ['File', r.original_filename], ['Origin', originLabel(r.origin_type)],
          ['Signer', (r.signer && (r.signer.display || r.signer.org_name)) || ''],
          ['Organisation type', r.signer ? orgTypeLabel(r.signer.org_type) : ''], ['Created', fmtTime(r.created_at)],
          ['SHA-256', r.sha256], ['Original SHA-256', r.original_sha256 || ''], ['Perceptual hash', r.perceptual_hash],
          ['Watermark payload', r.watermark_payload_hex], ['Size', r.width ? `${r.width}×${r.height} ${r.output_format || ''}` : ''],
          ['Parent record', r.parent_record_id || ''],
        ]);
        const an = r.anchoring || {};
        kv($('#anchoring'), [['Status', statusBadge(r.blockchain_status)], ['Transaction', r.blockchain_tx || ''],
          ['Anchored at', r.anchored_at ? fmtTime(r.anchored_at) : ''], ['Detail', an.detail || ''],
          ['Network', an.network ? `${an.network.name} (chain id ${an.network.chain_id}), ` + (an.network.public ? 'a public network' : 'a ' + an.network.description) : '']]);
        $('#proof').textContent = an.proof ? JSON.stringify(an.proof, null, 2) : 'No proof yet: the record is waiting for the next anchoring batch.';
        $('#revoke-panel').hidden = r.status === 'revoked';
      } catch (e) {
        showError(msg, e);
      }
    };
    const dlg = $('#revoke-dialog');
    $('#revoke').addEventListener('click', () => { $('#reason').value = ''; dlg.showModal(); $('#revoke-cancel').focus(); });
    dlg.addEventListener('close', async () => {
      if (dlg.returnValue !== 'confirm') return;
      try {
        const reason = $('#reason').value;
        await api('DELETE', '/api/v1/content-records/' + encodeURIComponent(id), reason ? {json: {reason}} : {});
        showOK(msg, 'The record is revoked.');
        await load();
      } catch (e) {
        showError(msg, e);
      }
    });
    load();
  }

  // ---- keys ----------------------------------------------------------

  async function keysPage() {
    const msg = $('#msg');
    const loadSigning = async () => {
      const ks = await api('GET', '/api/v1/keys/signing-keys');
      const tb = $('#signing-keys tbody');
      tb.replaceChildren(...(ks.items || []).map((k) => el('tr', {},
        el('td', {}, k.name), el('td', {title: k.origin_type}, originLabel(k.origin_type)), el('td', {}, [k.device_id, k.device_info].filter(Boolean).join(' · ') || '–'),
        el('td', {class: 'mono', title: k.public_key_hex}, short(k.public_key_hex, 16)), el('td', {}, fmtTime(k.created_at)))));
      if (!tb.children.length) tb.append(el('tr', {}, el('td', {colspan: 5}, 'No signing key yet.')));
    };
    const loadAPI = async () => {
      const ks = await api('GET', '/api/v1/keys/api-keys');
      const tb = $('#api-keys tbody');
      tb.replaceChildren(...(ks.items || []).map((k) => el('tr', {},
        el('td', {}, k.name), el('td', {}, (k.scopes || []).join(', ')), el('td', {class: 'mono'}, '…' + k.last4),
        el('td', {}, fmtTime(k.created_at)), el('td', {}, fmtTime(k.last_used_at)),
        el('td', {}, k.revoked_at ? statusBadge('revoked') : el('button', {type: 'button', class: 'danger small',
          'aria-label': 'Revoke API key ' + k.name,
          onclick: async () => {
            if (!confirm('Revoke the API key "' + k.name + '"? Programs using it stop working at once.')) return;
            try { await api('DELETE', '/api/v1/keys/api-keys/' + encodeURIComponent(k.id)); showOK(msg, 'API key revoked.'); await loadAPI(); } catch (e) { showError(msg, e); }
          }}, 'Revoke')))));
      if (!tb.children.length) tb.append(el('tr', {}, el('td', {colspan: 6}, 'No API key yet.')));
    };
    $('#sk-form').addEventListener('submit', async (e) => {
      e.preventDefault();
      const f = e.target;
      try {
        await api('POST', '/api/v1/keys/signing-keys', {json: {name: f.name.value, origin_type: f.origin_type.value,
          device_id: f.device_id.value, device_info: f.device_info.value}});
        f.reset();
        showOK(msg, 'Signing key created.');
        await loadSigning();
      } catch (err) {
        showError(msg, err, f);
      }
    });
    $('#ak-form').addEventListener('submit', async (e) => {
      e.preventDefault();
      const f = e.target;
      const scopes = $$('input[name="scopes"]:checked', f).map((c) => c.value);
      try {
        const k = await api('POST', '/api/v1/keys/api-keys', {json: {name: f.elements.name.value, scopes}});
        f.elements.name.value = '';
        $('#new-key-value').value = k.key;
        $('#new-key').hidden = false;
        $('#new-key-value').focus();
        await loadAPI();
      } catch (err) {
        showError(msg, err, f);
      }
    });
    $('#copy-key').addEventListener('click', (e) => copy($('#new-key-value'), e.target));
    try { await Promise.all([loadSigning(), loadAPI()]); } catch (e) { showError(msg, e); }
  }

  // ---- webhooks ------------------------------------------------------

  async function webhooksPage() {
    const msg = $('#msg');
    const list = $('#webhooks');
    const dsel = $('#dl-webhook');
    const events = $$('#wh-events input').map((c) => c.value);
    let hooks = [];
    const showSecret = (s) => {
      $('#new-secret-value').value = s;
      $('#new-secret').hidden = false;
      $('#new-secret-value').focus();
    };
    const load = async () => {
      const page = await api('GET', '/api/v1/webhooks?limit=100');
      hooks = page.items || [];
      list.replaceChildren(...hooks.map(card));
      if (!hooks.length) list.append(el('p', {}, 'No webhook yet.'));
      const cur = dsel.value;
      dsel.replaceChildren(el('option', {value: ''}, 'All webhooks'), ...hooks.map((h) => el('option', {value: h.id}, h.url)));
      dsel.value = hooks.some((h) => h.id === cur) ? cur : '';
    };
    const act = async (fn, ok) => {
      try { await fn(); if (ok) showOK(msg, ok); await load(); } catch (e) { showError(msg, e); }
    };
    const card = (h) => {
      const boxes = events.map((ev) => el('label', {class: 'check'},
        el('input', {type: 'checkbox', value: ev, checked: (h.events || []).includes(ev)}), ' ' + ev));
      const fs = el('fieldset', {}, el('legend', {}, 'Events'), ...boxes);
      return el('article', {class: 'hook', 'data-id': h.id},
        el('h3', {class: 'break'}, h.url), el('p', {class: 'hint'}, (h.active ? 'active' : 'inactive') + ' · created ' + fmtTime(h.created_at)),
        fs,
        el('div', {class: 'row'},
          el('button', {type: 'button', class: 'secondary', onclick: () => act(() => api('PUT', '/api/v1/webhooks/' + h.id,
            {json: {events: $$('input:checked', fs).map((c) => c.value)}}), 'Events saved.')}, 'Save events'),
          el('button', {type: 'button', class: 'secondary', onclick: () => act(() => api('POST', '/api/v1/webhooks/' + h.id + '/test'),
            'A test event was queued; see the deliveries below.').then(loadDeliveries)}, 'Send test event'),
          el('button', {type: 'button', class: 'secondary', onclick: () => act(async () => {
            if (!confirm('Rotate the secret? The old one keeps working for a short overlap.')) return;
            showSecret((await api('POST', '/api/v1/webhooks/' + h.id + '/rotate-secret')).secret);
          })}, 'Rotate secret'),
          el('button', {type: 'button', class: 'secondary', onclick: () => { dsel.value = h.id; loadDeliveries(); }}, 'Deliveries'),
          el('button', {type: 'button', class: 'danger', onclick: () => act(async () => {
            if (!confirm('Delete the webhook ' + h.url + '?')) return;
            await api('DELETE', '/api/v1/webhooks/' + h.id);
          }, 'Webhook deleted.')}, 'Delete')));
    };
    let more = null;
    const loadDeliveries = async (append) => {
      const status = $('#dl-status').value;
      const ids = dsel.value ? [dsel.value] : hooks.map((h) => h.id);
      const tb = $('#deliveries tbody');
      try {
        let items = [];
        const cursors = {};
        for (const id of ids) {
          const q = new URLSearchParams({limit: '20'});
          if (status) q.set('status', status);
          if (append && more && more[id]) q.set('cursor', more[id]);
          else if (append) continue;
          const page = await api('GET', '/api/v1/webhooks/' + id + '/deliveries?' + q);
          items = items.concat(page.items || []);
          if (page.next_cursor) cursors[id] = page.next_cursor;
        }
        more = cursors;
        items.sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
        const rows = items.map((d) => {
          const last = (d.attempts || [])[d.attempts.length - 1];
          return el('tr', {'data-delivery': d.id, 'data-status': d.status},
            el('td', {}, d.event), el('td', {}, statusBadge(d.status === 'succeeded' ? 'delivered' : d.status)), el('td', {}, String((d.attempts || []).length)),
            el('td', {}, last ? (last.status_code ? 'HTTP ' + last.status_code : last.error || '–') : (d.last_error || '–')),
            el('td', {}, fmtTime(d.created_at)),
            el('td', {}, d.status === 'failed' ? el('button', {type: 'button', class: 'small', 'aria-label': 'Retry delivery ' + d.id,
              onclick: async () => {
                try { await api('POST', '/api/v1/webhooks/deliveries/' + d.id + '/retry'); showOK(msg, 'Retry queued.'); setTimeout(() => loadDeliveries(), 800); } catch (e) { showError(msg, e); }
              }}, 'Retry') : ''));
        });
        if (append) tb.append(...rows); else tb.replaceChildren(...rows);
        if (!tb.children.length) tb.append(el('tr', {}, el('td', {colspan: 6}, 'No deliveries.')));
        $('#dl-more').hidden = !Object.keys(cursors).length;
      } catch (e) {
        showError(msg, e, $('#dl-filter'));
      }
    };
    $('#dl-filter').addEventListener('submit', (e) => { e.preventDefault(); loadDeliveries(); });
    $('#dl-more').addEventListener('click', () => loadDeliveries(true));
    const guide = $('#wh-guide');
    $('#wh-form').addEventListener('submit', async (e) => {
      e.preventDefault();
      const f = e.target;
      guide.hidden = true;
      try {
        const h = await api('POST', '/api/v1/webhooks', {json: {url: f.url.value, events: $$('input:checked', f).map((c) => c.value)}});
        f.url.value = '';
        showSecret(h.secret);
        await load();
        await loadDeliveries();
      } catch (err) {
        showError(msg, err, f);
        const words = webhookGuide(f.url.value, err);
        if (words) {
          guide.replaceChildren(...words);
          guide.hidden = false;
        }
      }
    });
    $('#copy-secret').addEventListener('click', (e) => copy($('#new-secret-value'), e.target));
    try { await load(); await loadDeliveries(); } catch (e) { showError(msg, e); }
  }

  // webhookGuide turns a refused webhook URL into what the operator sets
  // so that it is accepted (the origin's environment variables, as
  // docs/webhooks.md names them), or null when the refusal is not about
  // the address policy.
  function webhookGuide(raw, err) {
    if (!(err instanceof ApiError)) return null;
    const reasons = (err.problem.errors || []).filter((e) => e.field === 'url').map((e) => e.message || e.detail || '').concat([err.message]).join(' ');
    let u = null;
    try { u = new URL(raw.trim()); } catch (e) { return null; }
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const v4 = /^\d+\.\d+\.\d+\.\d+$/.test(host);
    const v6 = host.includes(':');
    const cidr = v4 ? host + '/32' : v6 ? host + '/128' : null;
    const code = (t) => el('code', {}, t);
    const out = [];
    const refused = /refused address \(([a-z -]+) address\)/.exec(reasons);
    const port = /port (\d+) not allowed/.exec(reasons);
    if (refused && /(^|\.)localhost\.?$/.test(host)) {
      out.push(el('p', {}, el('strong', {}, 'The name localhost is always refused. '), 'Use the address instead, ',
        code(u.protocol + '//127.0.0.1' + (u.port ? ':' + u.port : '') + u.pathname), ', which the operator allows by starting the origin with'),
        el('p', {}, code('PROVENANT_WEBHOOK_ALLOW_CIDRS=127.0.0.1/32')),
        el('p', {}, 'and restarting it; then create the webhook again. An allowed address may use any port, and plain ', code('http://'), ' as well as https.'));
    } else if (port) {
      out.push(el('p', {}, el('strong', {}, 'The port is not allowed. '), 'Webhooks go to ports 80 and 443 only, unless the operator adds the port: start the origin with ',
        code('PROVENANT_WEBHOOK_PORTS=' + port[1]), '.'));
    } else if (refused) {
      const cls = refused[1];
      const range = cidr || (cls === 'loopback' ? '127.0.0.1/32,::1/128' : null);
      out.push(el('p', {}, el('strong', {}, `This address is ${/^[aeiou]/.test(cls) ? 'an' : 'a'} ${cls} address. `),
        'The origin refuses to call addresses inside its own network, so that a webhook cannot reach internal services by mistake. ' +
        'To allow a receiver you run there, the operator starts the origin with'),
        el('p', {}, code('PROVENANT_WEBHOOK_ALLOW_CIDRS=' + (range || '<the receiver\'s address range, e.g. 10.0.0.0/8>'))),
        el('p', {}, 'and restarts it; then create the webhook again. An allowed address may use any port, and plain ', code('http://'), ' as well as https.'));
    } else if (/must use https/.test(reasons)) {
      out.push(el('p', {}, el('strong', {}, 'Plain http is refused for internet addresses. '), 'Use an ', code('https://'),
        ' URL, or have the operator start the origin with ', code('PROVENANT_WEBHOOK_ALLOW_HTTP=true'), ' (deliveries are still signed, but not encrypted).'));
    } else if (/does not resolve/.test(reasons)) {
      out.push(el('p', {}, el('strong', {}, `The origin found no address for ${host}. `),
        'Check the name (example.com addresses are placeholders that do not exist). A receiver on this machine or your network: use its IP address, e.g. ',
        code(u.protocol + '//127.0.0.1:' + (u.port || '8080') + u.pathname), ', which the operator allows with ', code('PROVENANT_WEBHOOK_ALLOW_CIDRS=127.0.0.1/32'), '.'));
    } else {
      return null;
    }
    out.push(el('p', {class: 'hint'}, 'Settings are read when the origin starts; see docs/webhooks.md, “Security: which URLs are accepted”.'));
    return out;
  }

  // ---- verify --------------------------------------------------------

  let worker = null;
  let seq = 0;
  const pending = new Map();
  // verifyInBrowser runs the widget's verifier worker on the file; the
  // worker reads it from a blob: URL of this page and sends only facts,
  // with report so that the verification counts for the signer once, as
  // the server fallback's does.
  function askWorker(msg) {
    if (!worker) {
      worker = new Worker('/api/v1/widget/worker.js');
      worker.postMessage({type: 'init', base: location.origin});
      worker.onmessage = (e) => {
        const p = pending.get(e.data.id);
        if (p) { pending.delete(e.data.id); p(e.data); }
      };
      worker.onerror = (e) => {
        for (const [id, p] of pending) { pending.delete(id); p({status: 'error', error: e.message || 'the verifier failed'}); }
        worker = null;
      };
    }
    const id = ++seq;
    return new Promise((resolve) => {
      pending.set(id, resolve);
      worker.postMessage(Object.assign({id}, msg));
    });
  }

  function verifyInBrowser(file) {
    const url = URL.createObjectURL(file);
    return askWorker({src: url, report: true}).finally(() => URL.revokeObjectURL(url));
  }

  // presentOnServerAnswer says a POST /api/v1/verify answer in the shared
  // words (the module's present export); null without WebAssembly.
  async function presentOnServerAnswer(v, wasm) {
    if (!wasm || !v) return null;
    const r = await askWorker({op: 'present', verify: v});
    return r.presentation || null;
  }

  // isVideo: the in-browser verifier reads pictures only, so a video goes
  // to the server's verify (by its type, or its name when the browser
  // gives no type).
  const isVideo = (file) => /^video\//.test(file.type || '') || /\.(mp4|m4v|mov|webm|mkv)$/i.test(file.name || '');

  // Why a file was sent to the server instead of checked here, said on the
  // page next to the verdict.
  const uploadReasons = {
    nowasm: 'This browser cannot run WebAssembly, so the file was sent to the server for verification (POST /api/v1/verify) and not kept.',
    video: 'Videos are checked on the server: the verifier in this browser reads pictures only. The file was uploaded for verification (POST /api/v1/verify) and not kept.',
    format: 'The verifier in this browser cannot read this kind of file, so it was uploaded to the server for verification (POST /api/v1/verify) and not kept.',
  };

  // verifyOnServer sends the file to POST /api/v1/verify: without
  // WebAssembly, for a video, or for a file the module cannot read.
  async function verifyOnServer(file) {
    const fd = new FormData();
    fd.append('file', file, file.name);
    const r = await fetch('/api/v1/verify', {method: 'POST', body: fd, credentials: 'omit'});
    const v = await r.json();
    if (!r.ok) throw new ApiError(r.status, v);
    let status = 'none';
    if (v.match === 'revoked' || (v.resembles && v.resembles.relation === 'revoked') ||
      (v.chain || []).some((c) => c.record_id === v.record_id && c.status === 'revoked')) status = 'revoked';
    else if (v.authentic) status = v.checks.blockchain.passed ? 'verified' : 'pending';
    else if (v.record_id || v.resembles) status = 'altered';
    return {status, result: Object.assign({record_id: v.record_id}, v), match: v.match};
  }

  // verdicts are the words of a verdict when no presentation could be
  // computed (a browser without WebAssembly): the status only.
  const verdicts = {
    verified: ['Authentic', 'Signed and anchored.'],
    pending: ['Authentic (anchoring pending)', 'Signed; the record waits for the next anchoring batch.'],
    revoked: ['Not authentic — record revoked', 'The signer revoked this record: do not rely on it.'],
    altered: ['Not authentic', 'A record was found, but this file is not shown to be the one signed.'],
    none: ['No record found', 'Nothing in the registry matches this file.'],
    error: ['Could not verify', ''],
  };
  // Tones of the shared presentation, as classes of the headline.
  const toneClass = {authentic: 'verdict-verified', caution: 'verdict-caution', not_authentic: 'verdict-revoked', neutral: 'verdict-none'};
  const stateLook = {passed: ['pass', '✓', 'passed'], failed: ['fail', '✗', 'failed'], not_applicable: ['skipped', '–', 'not applicable']};
  const checkNames = {watermark: 'Watermark', sha256: 'Exact file (SHA-256)', perceptual_hash: 'Picture (perceptual hash)', blockchain: 'Blockchain anchoring'};

  // pictureURL keeps one blob: URL of the picture last checked on a page
  // (revoking the one before), for drawing the evidence on it.
  let pictureURL = '';
  function showPicture(file) {
    if (pictureURL) URL.revokeObjectURL(pictureURL);
    pictureURL = file && !isVideo(file) ? URL.createObjectURL(file) : '';
    return pictureURL;
  }

  async function verifyPage() {
    const prog = $('#progress');
    const box = $('#result');
    const run = async (file) => {
      if (!file) return;
      box.hidden = true;
      const wasm = typeof WebAssembly === 'object' && typeof WebAssembly.instantiate === 'function';
      // upload names why the file goes to the server; '' keeps it here.
      let upload = !wasm ? 'nowasm' : isVideo(file) ? 'video' : '';
      const onServer = async () => {
        prog.replaceChildren(el('p', {}, 'Uploading ' + file.name + ' to the server for checking… ' + uploadReasons[upload].split('. ')[0] + '.'));
        try {
          const r = await verifyOnServer(file);
          r.presentation = await presentOnServerAnswer(r.result, wasm);
          return r;
        } catch (e) {
          return {status: 'error', error: e.message, code: e.problem && e.problem.code};
        }
      };
      let r;
      if (upload) {
        r = await onServer();
      } else {
        prog.replaceChildren(el('p', {}, 'Checking ' + file.name + ' in this browser…'));
        r = await verifyInBrowser(file);
        // A file the module cannot read at all (another format) may still
        // be something the server can: ask it, and say so.
        if (r.status === 'error' && r.code === 'unsupported_format') {
          upload = 'format';
          r = await onServer();
        }
      }
      prog.replaceChildren();
      const p = r.presentation || null;
      let [title, text] = verdicts[r.status] || verdicts.error;
      if (p) [title, text] = [p.headline, p.explanation];
      const res = r.result || {};
      const net = res.network;
      box.dataset.status = r.status;
      box.dataset.path = upload ? 'server' : 'browser';
      box.dataset.upload = upload;
      box.dataset.decoder = r.decoder || '';
      box.dataset.tone = p ? p.tone : '';
      const h = $('#verdict');
      h.className = 'verdict ' + (p ? toneClass[p.tone] || '' : 'verdict-' + r.status);
      h.replaceChildren(title, el('span', {class: 'sub'}, r.status === 'error' ? r.error + (r.code && !r.error.includes(r.code) ? ' (' + r.code + ')' : '') : text));
      $('#path').textContent = upload ? uploadReasons[upload]
        : 'Verified in this browser with the WebAssembly verifier' + (r.decoder === 'browser' ? ' (the picture decoded by the browser itself)' : '') +
          ': the file did not leave your machine; only its fingerprints were looked up.';
      const signer = res.signer || {};
      const origin = res.origin || {};
      const anchor = r.anchor;
      const rs = res.resembles;
      const rows = [
        ['File', `${file.name} (${file.size} bytes)`],
        ['Signer', p ? p.signer : (res.authentic ? signer.display || signer.org_name : '')],
        ['Origin', origin.label ? origin.label + (origin.declared ? ' (declared by the signer)' : '') : ''],
        ['Signed at', res.timestamp ? fmtTime(res.timestamp) : ''],
        ['Match', res.authentic && p ? p.match_text : ''],
        ['Provenance', p ? p.chain : ''],
        ['Signing key', p ? p.key_rule : ''],
        ['Anchoring', anchor ? `block ${anchor.block}` + (anchor.network ? ' · ' + anchor.network : '')
          : (res.blockchain_tx ? 'anchored' : (res.record_id ? 'pending' : ''))],
        ['Transaction', anchor ? anchor.tx : res.blockchain_tx || ''],
        ['Network', net ? `${net.name} (chain id ${net.chain_id}), ` + (net.public ? 'a public network' : 'a ' + net.description) : ''],
        ['Record', res.record_id || ''],
        ['Record found', !res.authentic && rs ? rs.record_id : ''],
        ['Record signed by', !res.authentic && rs ? rs.claimed_by : ''],
        ['Details', !res.authentic && rs ? rs.detail : ''],
      ].filter((x) => x[1]);
      const long = new Set(['Record', 'Record found', 'Transaction']);
      $('#facts').replaceChildren(...rows.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, long.has(k) ? hashValue(v, k) : v)]));
      const ev = r.status === 'error' ? null : evidence(showPicture(file), res);
      $('#evidence').replaceChildren(ev || '');
      $('#chain').hidden = !timeline($('#timeline'), (res.chain || []).length > 1 ? res.chain : [], res.record_id);
      const checks = res.checks || {};
      const presented = new Map(((p && p.checks) || []).map((c) => [c.name, c]));
      $('#checks').replaceChildren(...Object.keys(checkNames).map((k) => {
        // The tri-state is the shared presentation's; without one, a
        // check is passed or not applicable, never a guessed failure.
        const c = presented.get(k) || {label: checkNames[k], state: (checks[k] || {}).passed ? 'passed' : 'not_applicable',
          summary: (checks[k] || {}).details || 'not checked'};
        const [cls, mark, word] = stateLook[c.state] || stateLook.not_applicable;
        const why = c.summary + (c.reason && c.reason !== c.summary ? ': ' + c.reason : '');
        return el('li', {class: cls, 'data-check': k, 'data-state': c.state},
          el('span', {class: 'mark', 'aria-hidden': 'true'}, mark),
          el('strong', {}, (c.label || checkNames[k]) + ': ' + word), ' — ', why,
          // The verifier's own details, unless the reason already says them.
          c.details && !why.includes(c.details) ? el('span', {class: 'hint check-details'}, c.details) : null);
      }));
      const rid = res.record_id || (rs && rs.record_id);
      $('#cert-link').replaceChildren(rid ? el('a', {href: '/api/v1/content-records/' + encodeURIComponent(rid) + '/certificate'}, 'Open the certificate') : '');
      box.hidden = false;
      h.setAttribute('tabindex', '-1');
      h.focus();
    };
    $('#file').addEventListener('change', (e) => run(e.target.files[0]));
    dropZone($('#drop'), (files) => run(files[0]));
  }

  // ---- registry search -----------------------------------------------

  async function sha256Hex(file) {
    const d = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
    return Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join('');
  }

  async function searchPage() {
    const msg = $('#msg');
    const form = $('#search-form');
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      msg.replaceChildren();
      const file = $('#hash-file').files[0];
      try {
        if (file) form.sha256.value = await sha256Hex(file);
        const q = new URLSearchParams({sha256: form.sha256.value.trim().toLowerCase(), limit: '20'});
        const r = await fetch('/api/v1/content-records/public/search?' + q, {headers: {Accept: 'application/json'}});
        const page = await r.json();
        if (!r.ok) throw new ApiError(r.status, page);
        const tb = $('#hits tbody');
        tb.replaceChildren(...(page.items || []).map((x) => el('tr', {},
          el('td', {}, el('a', {href: '/api/v1/content-records/' + encodeURIComponent(x.id) + '/certificate'}, short(x.id, 16))),
          el('td', {}, (x.signer && x.signer.display) || x.org_name), el('td', {title: x.origin_type}, originLabel(x.origin_type)),
          el('td', {}, fmtTime(x.created_at)), el('td', {}, statusBadge(x.status)))));
        $('#none').hidden = tb.children.length > 0;
      } catch (err) {
        showError(msg, err, form);
      }
    });
  }

  // ---- the public certificate ----------------------------------------

  // certificatePage adds copy buttons to the long values and checks a
  // copy of the picture against this record, in the browser, drawing
  // what differs on it.
  async function certificatePage() {
    copyButtons(document);
    const id = $('main').dataset.record;
    const out = $('#copy-result');
    const prog = $('#progress');
    if (!out) return;
    const run = async (file) => {
      if (!file) return;
      out.hidden = true;
      prog.replaceChildren(el('p', {}, 'Checking ' + file.name + ' in this browser…'));
      const r = await verifyInBrowser(file);
      prog.replaceChildren();
      const res = r.result || {};
      const p = r.presentation || {};
      const found = res.record_id || (res.resembles && res.resembles.record_id) || '';
      let head;
      let tone;
      if (r.status === 'error') {
        [head, tone] = ['Could not check this file: ' + (r.error || 'unknown error'), 'bad'];
      } else if (found === id && res.authentic) {
        [head, tone] = ['This copy is the picture of this record', 'ok'];
      } else if (found === id) {
        [head, tone] = ['This copy is linked to this record, but not shown to be its picture', 'bad'];
      } else if (found) {
        [head, tone] = ['This copy belongs to another record', 'caution'];
      } else {
        [head, tone] = ['This copy is not linked to this record', 'caution'];
      }
      out.dataset.status = r.status;
      out.dataset.match = res.match || '';
      out.className = 'verdict-box tone-' + tone;
      out.replaceChildren(el('h3', {}, head),
        p.headline ? el('p', {}, el('strong', {}, p.headline), p.explanation ? ' — ' + p.explanation : '') : '',
        found && found !== id ? el('p', {}, el('a', {href: '/api/v1/content-records/' + encodeURIComponent(found) + '/certificate'}, 'The certificate of that record')) : '',
        r.status === 'error' ? '' : evidence(showPicture(file), res) || '',
        el('p', {class: 'hint'}, 'The picture did not leave your machine; only its fingerprints were looked up.'));
      out.hidden = false;
    };
    $('#file').addEventListener('change', (e) => run(e.target.files[0]));
    dropZone($('#drop'), (files) => run(files[0]));
  }

  // On a phone a table shows each row as a card (app.css); every cell
  // carries its column's name, kept up to date as rows are rendered.
  function labelCells(table) {
    const names = $$('thead th', table).map((th) => (th.querySelector('.sr-only') ? '' : th.textContent.trim()));
    const apply = () => $$('tbody tr', table).forEach((tr) => Array.from(tr.children).forEach((td, i) => {
      if (names[i] && td.colSpan === 1) td.dataset.label = names[i];
    }));
    apply();
    new MutationObserver(apply).observe($('tbody', table), {childList: true});
  }
  $$('.table-wrap table').forEach(labelCells);

  const pages = {overview, sign, records, record: recordPage, keys: keysPage, webhooks: webhooksPage, verify: verifyPage, search: searchPage,
    certificate: certificatePage};
  // data-ready tells tests (and anyone waiting) that the page's controls
  // are wired and its first data is shown.
  const init = pages[document.body.dataset.page] || (() => undefined);
  Promise.resolve(init()).finally(() => { document.body.dataset.ready = '1'; });
})();
