// Provenant embed script: <script src="{base}/api/v1/widget/embed.js" async></script>
// verifies every <img data-provenant> in the visitor's browser and puts a
// <provenant-badge> after it. The only global is window.Provenant; no
// eval, no request to anyone but the Provenant origin (and the page's own
// images). docs/widget.md is the publisher contract.
(function () {
  'use strict';
  if (window.Provenant) return;

  // currentScript is null when a bundler or loader ran this file; the tag
  // itself still names the service.
  const script = document.currentScript || document.querySelector('script[src*="/api/v1/widget/embed.js"]');
  const base = script && script.src
    ? script.src.replace(/\/api\/v1\/widget\/embed\.js(?:[?#].*)?$/, '')
    : location.origin;
  // data-decoder="wasm" on the script tag makes the verifier module
  // decode every picture itself, "browser" the browser decode every
  // picture it can, "canvas" keeps the browser's decoder but not
  // WebCodecs; without it each picture goes to the decoder measured
  // fastest for its kind (docs/widget.md).
  const DECODERS = ['wasm', 'browser', 'canvas'];
  const decoderAttr = script ? script.getAttribute('data-decoder') : '';
  const decoderChoice = DECODERS.includes(decoderAttr) ? decoderAttr : 'auto';

  const MATCHES = {
    exact: 'the signed file, byte for byte',
    reencoded: 'the signed picture, re-encoded or resized',
    crop: 'a crop of the signed picture',
    edited: 'the signed picture with parts changed',
    mismatch: 'a watermark copied into another picture',
    perceptual: 'a picture that looks like a signed one',
  };
  const STATUSES = ['verified', 'pending', 'altered', 'revoked', 'record', 'none', 'error'];

  // What each status says, in words and colour (the text alone carries
  // the meaning; the colour only repeats it).
  const LOOK = {
    checking: {text: 'Checking provenance…', colour: '#57606a', mark: '…'},
    verified: {text: 'Verified', colour: '#1a7f37', mark: '✓'},
    pending: {text: 'Signed, anchoring pending', colour: '#9a6700', mark: '◷'},
    altered: {text: 'Altered', colour: '#bc4c00', mark: '!'},
    revoked: {text: 'Revoked by its signer', colour: '#cf222e', mark: '✕'},
    // data-provenant-record on a picture the page could not read: the
    // record checks out, the picture was never compared with it, so the
    // badge vouches for nothing about the picture (never "Verified").
    record: {text: 'Record only — picture not checked', colour: '#0b5cad', mark: 'i',
      title: 'Record only — this picture was not checked'},
    none: {text: 'No provenance found', colour: '#57606a', mark: '?'},
    error: {text: 'Could not check', colour: '#57606a', mark: '!'},
  };

  const CHECKS = [
    ['watermark', 'Watermark'],
    ['sha256', 'File hash (SHA-256)'],
    ['perceptual_hash', 'Perceptual hash'],
    ['blockchain', 'Blockchain anchor'],
  ];

  // ---- worker ---------------------------------------------------------

  let workerPromise = null;
  let seq = 0;
  const waiting = new Map();

  // A worker script must be same-origin with the page, so the worker's
  // source is fetched (CORS) and started from a blob: URL.
  function worker() {
    if (!workerPromise) {
      workerPromise = fetch(base + '/api/v1/widget/worker.js', {credentials: 'omit'})
        .then((r) => {
          if (!r.ok) throw new Error('worker.js answered ' + r.status);
          return r.text();
        })
        .then((code) => {
          const url = URL.createObjectURL(new Blob([code], {type: 'text/javascript'}));
          const w = new Worker(url);
          URL.revokeObjectURL(url);
          w.onmessage = (e) => {
            const done = waiting.get(e.data.id);
            if (done) {
              waiting.delete(e.data.id);
              done(e.data);
            }
          };
          w.onerror = (e) => {
            for (const [id, done] of waiting) {
              waiting.delete(id);
              done({id, status: 'error', error: e.message || 'worker error'});
            }
          };
          w.postMessage({type: 'init', base, decoder: decoderChoice});
          return w;
        });
      workerPromise.catch(() => { workerPromise = null; });
    }
    return workerPromise;
  }

  function ask(msg) {
    return worker().then((w) => new Promise((resolve) => {
      msg.id = ++seq;
      waiting.set(msg.id, resolve);
      w.postMessage(msg);
    }), (err) => ({status: 'error', error: String(err && err.message || err)}));
  }

  // ---- the badge element ----------------------------------------------

  const CSS = `
:host { display: inline-block; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; vertical-align: top; margin: 4px 0; }
.badge { display: inline-flex; align-items: center; gap: 6px; border: 1px solid currentColor; border-radius: 999px; padding: 2px 10px 2px 4px;
  background: #fff; color: var(--c); font: inherit; cursor: pointer; }
.badge:focus-visible, .panel :focus-visible { outline: 3px solid #0969da; outline-offset: 2px; }
.mark { display: inline-grid; place-items: center; width: 18px; height: 18px; border-radius: 50%; background: var(--c); color: #fff; font-weight: 700; font-size: 12px; }
.backdrop { position: fixed; inset: 0; background: rgba(0,0,0,.35); z-index: 2147483646; }
.panel { box-sizing: border-box; position: fixed; z-index: 2147483647; top: 50%; left: 50%; transform: translate(-50%, -50%); width: min(440px, calc(100vw - 24px));
  max-height: calc(100vh - 24px); overflow: auto; background: #fff; color: #1f2328; border-radius: 10px; box-shadow: 0 10px 40px rgba(0,0,0,.35);
  padding: 16px 18px; text-align: left; }
.panel h2 { margin: 0 32px 4px 0; font-size: 17px; color: var(--c); }
.panel h3 { margin: 14px 0 6px; font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: #57606a; }
.panel dl { display: grid; grid-template-columns: max-content 1fr; gap: 3px 12px; margin: 0; }
.panel dt { color: #57606a; }
.panel dd { margin: 0; overflow-wrap: anywhere; }
.panel ul { list-style: none; margin: 0; padding: 0; }
.panel li { display: grid; grid-template-columns: 20px 1fr; gap: 2px 6px; padding: 4px 0; border-top: 1px solid #eaeef2; }
.panel li .d { grid-column: 2; color: #57606a; font-size: 12px; overflow-wrap: anywhere; }
.ok { color: #1a7f37; font-weight: 700; } .no { color: #cf222e; font-weight: 700; } .na { color: #57606a; font-weight: 700; }
.close { position: absolute; top: 10px; right: 10px; width: 30px; height: 30px; border: 1px solid #d0d7de; border-radius: 6px; background: #f6f8fa; font-size: 18px; line-height: 1; cursor: pointer; color: #1f2328; }
.note { color: #57606a; font-size: 12px; margin: 8px 0 0; }
.lead { margin: 4px 0 10px; }
.panel p { overflow-wrap: anywhere; }
a { color: #0969da; }
.ev { margin: 8px 0 4px; }
.ev figcaption { color: #57606a; font-size: 12px; margin-top: 4px; }
.pic { position: relative; display: inline-block; max-width: 100%; line-height: 0; }
.pic img { display: block; max-width: 100%; max-height: 40vh; height: auto; }
.pic svg { position: absolute; inset: 0; width: 100%; height: 100%; pointer-events: none; }
.changed { fill: rgba(207, 34, 46, .2); stroke: #cf222e; stroke-width: 2; }
.added { fill: rgba(15, 23, 42, .62); }
.vouched { fill: none; stroke: #1a7f37; stroke-width: 3; stroke-dasharray: 8 5; }
.frame { position: relative; max-width: 100%; background: repeating-linear-gradient(45deg, #eaeef2 0 6px, #d0d7de 6px 12px); border: 2px dashed #57606a; }
.frame img { position: absolute; display: block; outline: 3px solid #1a7f37; }
.tl { list-style: none; margin: 0; padding: 0 0 0 14px; border-left: 3px solid #d0d7de; }
.panel .tl li { display: block; border: 0; padding: 2px 0 6px 6px; }
.tl .w { display: block; color: #57606a; font-size: 12px; }
`;

  let sheet = null;
  function styleInto(root) {
    // A constructed stylesheet needs no 'unsafe-inline' in style-src.
    try {
      if (!sheet) {
        sheet = new CSSStyleSheet();
        sheet.replaceSync(CSS);
      }
      root.adoptedStyleSheets = [sheet];
    } catch (e) {
      const s = document.createElement('style');
      s.textContent = CSS;
      root.appendChild(s);
    }
  }

  // el builds an element; text goes in as text, never as markup.
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute(k, attrs[k]);
    }
    for (const k of kids) {
      if (k !== null && k !== undefined) e.append(k);
    }
    return e;
  }

  let panelSeq = 0;

  const RELATIONS = {original: 'signed first', derivative: 'signed as a derivative', resigned_copy: 're-signed a copy', earlier_match: 'signed an earlier match'};
  const SVGNS = 'http://www.w3.org/2000/svg';
  function svgEl(tag, attrs) {
    const e = document.createElementNS(SVGNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  const pct = (x) => Math.round(x * 1000) / 10;

  // evidence draws the picture with what the verdict found on it, from
  // the verify answer's geometry: changed blocks outlined (edited), the
  // crop's place in the signed picture (crop), the added surroundings
  // shaded (contained). Null when there is nothing to draw.
  function evidence(src, r) {
    if (!src || !r) return null;
    const img = el('img', {src, alt: ''});
    const cap = el('figcaption', {});
    const fig = el('figure', {class: 'ev', 'data-overlay': r.match || ''});
    const region = r.region, blocks = r.changed_blocks, contained = r.contained;
    if (r.match === 'crop' && region && region.w > 0 && region.h > 0) {
      const frame = el('div', {class: 'frame', role: 'img', 'aria-label': 'This copy shows ' + pct(region.w * region.h) + ' % of the signed picture; the hatched part was cut away.'});
      Object.assign(img.style, {left: pct(region.x) + '%', top: pct(region.y) + '%', width: pct(region.w) + '%', height: pct(region.h) + '%'});
      frame.append(img);
      const size = () => {
        const W = img.naturalWidth / region.w, H = img.naturalHeight / region.h;
        if (W && H) frame.style.aspectRatio = W + ' / ' + H;
      };
      img.addEventListener('load', size);
      fig.append(frame);
      cap.append('Where this copy sits in the signed picture (hatched: cut away).');
    } else {
      const box = el('div', {class: 'pic'}, img);
      const svg = svgEl('svg', {viewBox: '0 0 100 100', preserveAspectRatio: 'none', 'aria-hidden': 'true'});
      if (r.match === 'contained' && contained && contained.region) {
        const c = contained.region;
        const x = c.x * 100, y = c.y * 100, w = c.w * 100, h = c.h * 100;
        svg.append(svgEl('path', {class: 'added', 'fill-rule': 'evenodd', d: 'M0 0H100V100H0Z M' + x + ' ' + y + 'V' + (y + h) + 'H' + (x + w) + 'V' + y + 'Z'}));
        svg.append(svgEl('rect', {class: 'vouched', x, y, width: w, height: h, 'vector-effect': 'non-scaling-stroke'}));
        cap.append('Shaded: surroundings added around the signed picture, not vouched for by the signature.');
      } else if (blocks && blocks.cols > 0 && blocks.rows > 0 && (blocks.cells || []).length) {
        const g = region && region.w > 0 && region.h > 0 ? region : {x: 0, y: 0, w: 1, h: 1};
        for (const cell of blocks.cells) {
          const bx = (cell % blocks.cols) / blocks.cols, by = Math.floor(cell / blocks.cols) / blocks.rows;
          svg.append(svgEl('rect', {class: 'changed', x: ((bx - g.x) / g.w) * 100, y: ((by - g.y) / g.h) * 100,
            width: (1 / blocks.cols / g.w) * 100, height: (1 / blocks.rows / g.h) * 100, 'vector-effect': 'non-scaling-stroke'}));
        }
        cap.append('Outlined: the parts of the signed picture that differ in this copy.');
      } else {
        return null;
      }
      box.append(svg);
      fig.append(box);
    }
    fig.append(cap);
    return fig;
  }

  class ProvenantBadge extends HTMLElement {
    static get observedAttributes() { return ['status', 'record-id']; }

    constructor() {
      super();
      this.verification = null;
      const root = this.attachShadow({mode: 'open'});
      styleInto(root);
      this._button = el('button', {class: 'badge', type: 'button', 'aria-haspopup': 'dialog', 'aria-expanded': 'false', part: 'badge'});
      this._button.addEventListener('click', () => this.open());
      // The status colour lives on a wrapper inside the shadow root: a
      // custom element must not give itself attributes while constructed.
      this._wrap = el('span', {class: 'wrap'}, this._button);
      root.append(this._wrap);
      this._panel = null;
      this._render();
    }

    attributeChangedCallback() { this._render(); }

    get status() { return this.getAttribute('status') || ''; }

    _look() { return LOOK[STATUSES.includes(this.status) ? this.status : 'checking']; }

    _render() {
      const look = this._look();
      this._wrap.style.setProperty('--c', look.colour);
      this._button.replaceChildren(el('span', {class: 'mark', 'aria-hidden': 'true'}, look.mark), el('span', {}, look.text));
      this._button.setAttribute('aria-label', 'Provenance: ' + look.text + (this.status ? ', show details' : ''));
      this._button.setAttribute('aria-busy', this.status ? 'false' : 'true');
    }

    // open shows the details panel as a modal dialog.
    open() {
      if (this._panel) return;
      const root = this.shadowRoot;
      const id = 'provenant-title-' + (++panelSeq);
      const close = el('button', {class: 'close', type: 'button', 'aria-label': 'Close'}, '×');
      const backdrop = el('div', {class: 'backdrop'});
      const panel = el('div', {class: 'panel', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': id},
        el('h2', {id}, (this.verification && this.verification.presentation && this.verification.presentation.headline) ||
          this._look().title || this._look().text), close, ...this._details());
      close.addEventListener('click', () => this.close());
      backdrop.addEventListener('click', () => this.close());
      panel.addEventListener('keydown', (e) => this._trap(e));
      this._wrap.append(backdrop, panel);
      this._panel = panel;
      this._backdrop = backdrop;
      this._button.setAttribute('aria-expanded', 'true');
      close.focus();
    }

    close() {
      if (!this._panel) return;
      this._panel.remove();
      this._backdrop.remove();
      this._panel = this._backdrop = null;
      this._button.setAttribute('aria-expanded', 'false');
      this._button.focus();
    }

    // _trap keeps Tab inside the panel and closes it on Escape.
    _trap(e) {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        this.close();
        return;
      }
      if (e.key !== 'Tab') return;
      const f = [...this._panel.querySelectorAll('button, a[href]')];
      const first = f[0];
      const last = f[f.length - 1];
      const active = this.shadowRoot.activeElement;
      if (e.shiftKey && active === first) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && active === last) {
        e.preventDefault();
        first.focus();
      }
    }

    _details() {
      const v = this.verification;
      if (!v) return [el('p', {}, 'The check has not finished yet.')];
      if (v.status === 'error') return [el('p', {}, 'This picture could not be checked: ' + (v.error || 'unknown error') + '.')];
      const r = v.result || {};
      // The words are the verifier module's (shared/present), the same
      // on every surface; this only lays them out.
      const p = v.presentation || {checks: []};
      const out = [];
      if (p.explanation) out.push(el('p', {class: 'lead'}, p.explanation));
      const pic = this._img && !v.byRecord ? evidence(this._img.currentSrc || this._img.src, r) : null;
      if (pic) out.push(pic);
      if (p.note) out.push(el('p', {class: 'lead', 'data-record-only': ''}, p.note));
      const rows = [];
      const row = (k, val) => { if (val !== undefined && val !== null && val !== '') rows.push(el('dt', {}, k), el('dd', {}, String(val))); };
      if (r.authentic && typeof r.confidence === 'number') row('Confidence', Math.round(r.confidence * 100) + '%');
      if (p.signer) row('Signer', p.signer);
      else if (v.byRecord && r.signer) row('Record signed by', r.signer.org_name);
      if (r.authentic && r.signer) {
        row('Signing key', r.signer.key_name);
        row('Device', r.signer.device_id);
      }
      if (r.origin) row('Origin', r.origin.label || r.origin.code);
      if (r.timestamp) row('Signed at', r.timestamp.replace('T', ' ').replace('Z', ' UTC'));
      if (r.record_id) row('Record', r.record_id);
      if (r.authentic && p.match_text) row('Match', p.match_text);
      if (r.region) row('Part of the signed picture', Math.round(r.region.w * r.region.h * 100) + '%');
      if (p.chain) row('Provenance', p.chain);
      const chain = (r.chain || []).length > 1 ? r.chain : null;
      if (p.key_rule) row('Signing key revoked', p.key_rule);
      if (!r.authentic && r.resembles) {
        // What the file resembles, said as such: a record that does not
        // vouch for this file, and who signed that record.
        row('Record found', r.resembles.record_id);
        row('Record signed by', r.resembles.claimed_by);
        row('Details', r.resembles.detail);
      }
      out.push(el('dl', {}, ...rows));
      if (chain) {
        // The chain as a short timeline, oldest first.
        out.push(el('h3', {}, 'Provenance chain'));
        out.push(el('ol', {class: 'tl', 'aria-label': 'Provenance chain, oldest first'}, ...chain.map((c) => el('li', {},
          el('span', {class: 'w'}, (c.created_at || '').replace('T', ' ').replace('Z', ' UTC')),
          (c.org_name || 'Unknown signer') + ' ' + (RELATIONS[c.relation] || c.relation || '') + (c.record_id === r.record_id ? ' (this picture)' : '')))));
      }

      out.push(el('h3', {}, 'Checks'));
      const states = {passed: ['ok', '✓', 'passed'], failed: ['no', '✕', 'failed'], not_applicable: ['na', '–', 'not applicable']};
      const byName = new Map((p.checks || []).map((c) => [c.name, c]));
      out.push(el('ul', {'aria-label': 'Checks'}, ...CHECKS.map(([key, name]) => {
        const c = byName.get(key) || {label: name, state: 'not_applicable', summary: 'Not checked'};
        const [cls, mark, word] = states[c.state] || states.not_applicable;
        const why = c.summary + (c.reason && c.reason !== c.summary ? ': ' + c.reason : '');
        return el('li', {'data-check': key, 'data-state': c.state},
          el('span', {class: cls, 'aria-hidden': 'true'}, mark),
          el('span', {}, (c.label || name) + ': ' + word),
          el('span', {class: 'd'}, why));
      })));

      out.push(el('h3', {}, 'Anchoring'));
      if (v.anchor) {
        const a = [];
        const arow = (k, val) => { if (val) a.push(el('dt', {}, k), el('dd', {}, String(val))); };
        arow('Transaction', v.anchor.tx);
        arow('Block', v.anchor.block);
        arow('Network', v.anchor.network + (v.anchor.chain_id ? ' (chain ' + v.anchor.chain_id + ')' : ''));
        out.push(el('dl', {}, ...a));
      } else {
        out.push(el('p', {class: 'note'}, r.blockchain_tx ? 'Transaction ' + r.blockchain_tx
          : !r.authentic && r.resembles ? 'This file is not shown to be an anchored record (see the blockchain check).'
          : 'Not anchored on chain (yet).'));
      }
      // Which chain, always: a local chain's anchor is no public timestamp.
      const net = r.network;
      if (net) {
        out.push(el('p', {class: 'note', 'data-network': net.public ? 'public' : 'local'},
          'Network: ' + net.name + ' (chain id ' + net.chain_id + '), ' +
          (net.public ? 'a public network' : 'a ' + (net.description || 'local development chain, not a public timestamp')) + '.'));
        if (net.public && net.explorer_tx_url && r.blockchain_tx && /^0x[0-9a-f]{64}$/.test(r.blockchain_tx)) {
          out.push(el('p', {}, el('a', {href: net.explorer_tx_url.replace('{tx}', r.blockchain_tx), target: '_blank',
            rel: 'noopener noreferrer'}, 'The transaction on a block explorer')));
        }
      }
      if (v.byRecord) {
        out.push(el('p', {class: 'note'}, 'To have the picture itself checked, its server must allow this page to read it (CORS).'));
        out.push(el('p', {class: 'note'}, 'The record was checked in this browser.'));
      } else {
        out.push(el('p', {class: 'note'}, 'Checked in this browser: the picture was not sent anywhere.'));
      }
      const certID = r.record_id || (r.resembles && r.resembles.record_id);
      if (certID) {
        out.push(el('p', {}, el('a', {href: base + '/api/v1/content-records/' + encodeURIComponent(certID) + '/certificate',
          target: '_blank', rel: 'noopener noreferrer'}, r.record_id ? 'Public certificate' : 'Certificate of the record it resembles')));
      }
      return out;
    }
  }

  if (!customElements.get('provenant-badge')) customElements.define('provenant-badge', ProvenantBadge);

  // ---- images ---------------------------------------------------------

  const seen = new WeakMap(); // img -> badge

  function badgeFor(img) {
    let b = seen.get(img);
    if (!b) {
      b = document.createElement('provenant-badge');
      b._img = img;
      img.insertAdjacentElement('afterend', b);
      seen.set(img, b);
    }
    return b;
  }

  // verify checks one image now and resolves to its verification.
  function verify(img) {
    const b = badgeFor(img);
    const src = img.currentSrc || img.src || '';
    const record = img.getAttribute('data-provenant-record') || '';
    b.removeAttribute('status');
    return ask({src: src ? new URL(src, document.baseURI).href : '', record}).then((v) => {
      b.verification = v;
      const found = v.result && (v.result.record_id || (v.result.resembles && v.result.resembles.record_id));
      if (found) b.setAttribute('record-id', found);
      else if (record) b.setAttribute('record-id', record);
      b.setAttribute('status', v.status);
      b.dispatchEvent(new CustomEvent('provenant-status', {bubbles: true, composed: true, detail: {status: v.status}}));
      return v;
    });
  }

  // Images are checked when they come near the viewport, so a long page of
  // lazy images costs nothing until scrolled to.
  const near = 'IntersectionObserver' in window ? new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (e.isIntersecting) {
        near.unobserve(e.target);
        verify(e.target);
      }
    }
  }, {rootMargin: '300px'}) : null;

  function track(img) {
    if (seen.has(img)) return;
    badgeFor(img);
    if (near) near.observe(img);
    else verify(img);
  }

  function scan(root) {
    const r = root || document;
    if (r.matches && r.matches('img[data-provenant]')) track(r);
    if (r.querySelectorAll) r.querySelectorAll('img[data-provenant]').forEach(track);
  }

  new MutationObserver((records) => {
    for (const m of records) {
      if (m.type === 'attributes') {
        const img = m.target;
        if (img.matches('img[data-provenant]')) {
          if (seen.has(img) && m.attributeName === 'src') verify(img);
          else track(img);
        }
        continue;
      }
      m.addedNodes.forEach((n) => { if (n.nodeType === 1) scan(n); });
    }
  }).observe(document.documentElement, {childList: true, subtree: true, attributes: true, attributeFilter: ['data-provenant', 'src']});

  window.Provenant = Object.freeze({
    version: 1,
    base,
    // scan badges the marked images under root (the whole page by default).
    scan,
    // verify checks one image now, whether or not it is in view.
    verify: (img) => verify(img),
    // analyze returns the facts of the file at url, the decoder that read
    // its pixels ('browser' or 'wasm'; decoder 'wasm' forces the module's,
    // 'browser' the browser's, 'canvas' the browser's without WebCodecs)
    // and how long analyze took, decode included ({facts, decoder, ms:
    // [one per run]}); nothing leaves the browser.
    analyze: (url, runs, decoder) => ask({op: 'analyze', src: new URL(url, document.baseURI).href, runs: runs || 1,
      decoder: DECODERS.includes(decoder) ? decoder : ''}),
  });

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => scan());
  else scan();
})();
