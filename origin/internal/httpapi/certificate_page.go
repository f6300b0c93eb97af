package httpapi

import (
	"bytes"
	"html/template"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/origin/internal/accounts"
)

// PageAssets are the web app's stylesheet, script and icon (fingerprinted
// URLs), which the HTML certificate uses when the web app is mounted: the
// page then looks like the rest of the app, has its navigation, and its
// script adds copy buttons and lets a reader check a copy of the picture
// in the browser against the certificate.
type PageAssets struct {
	CSS, JS, Icon string
}

// SetPageAssets gives the HTML certificate the web app's assets (called
// once, when the web app is mounted, before serving). Without them the
// page is a self-contained document with an inline stylesheet.
func (a *API) SetPageAssets(css, js, icon string) {
	a.pageAssets.Store(&PageAssets{CSS: css, JS: js, Icon: icon})
}

// pageAssetsHolder is embedded in API.
type pageAssetsHolder struct {
	pageAssets atomic.Pointer[PageAssets]
}

// certPage is what the certificate template sees.
type certPage struct {
	certificateView
	Assets *PageAssets
	// OrgTypeLabel is OrgType in words.
	OrgTypeLabel string
}

// certPageCSP is the HTML certificate's policy with the web app's assets:
// its own scripts and styles, the verifier worker and WebAssembly for the
// "check a copy" section, a dropped picture through blob: URLs.
const certPageCSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; " +
	"img-src 'self' blob: data:; connect-src 'self' blob:; style-src 'self'; object-src 'none'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// certPlainCSP is the policy of the self-contained page (no web app).
const certPlainCSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"

// writeCertificatePage renders v as the public HTML certificate: read top
// down, it says the verdict, who signed, when, where it is anchored and
// how to check it; the raw fields are folded away at the end.
func (a *API) writeCertificatePage(ctx *fasthttp.RequestCtx, v certificateView) error {
	p := certPage{certificateView: v, Assets: a.pageAssets.Load(), OrgTypeLabel: accounts.OrgTypeLabel(v.OrgType)}
	var buf bytes.Buffer
	if err := certTemplate.Execute(&buf, p); err != nil {
		return err
	}
	h := &ctx.Response.Header
	h.Set("Cache-Control", "no-store")
	// The page is never framed: another site could dress it up or
	// overlay it.
	if p.Assets != nil {
		h.Set("Content-Security-Policy", certPageCSP)
	} else {
		h.Set("Content-Security-Policy", certPlainCSP)
	}
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Vary", "Accept")
	ctx.SetContentType("text/html; charset=utf-8")
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.SetBody(buf.Bytes())
	return nil
}

// humanTime says an RFC 3339 time as "2006-01-02 15:04:05 UTC" (the raw
// value stays in the JSON); anything else is shown as it is.
func humanTime(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

var certTemplate = template.Must(template.New("cert").Funcs(template.FuncMap{"human": humanTime}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Provenance certificate {{.RecordID}} · Provenant</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
{{with .Assets}}<link rel="stylesheet" href="{{.CSS}}"><link rel="icon" href="{{.Icon}}" type="image/svg+xml"><script src="{{.JS}}" defer></script>
{{else}}<style>body{font-family:system-ui,sans-serif;color:#1a1d23;line-height:1.5;margin:0}main{max-width:60rem;margin:0 auto;padding:1rem}dt{font-weight:600;margin-top:.4rem}dd{margin-left:1.25rem}code{overflow-wrap:anywhere}a{color:#1d4ed8}.verdict-box{border:2px solid #4b5260;border-radius:10px;padding:.75rem 1rem}.top a{margin-right:1rem}</style>
{{end}}</head>
<body data-page="certificate">
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/">{{with .Assets}}<img src="{{.Icon}}" alt="" width="24" height="24"> {{end}}Provenant</a>
  <nav aria-label="Main"><ul>
    <li><a href="/">Home</a></li>
    <li><a href="/verify">Verify</a></li>
    <li><a href="/search">Registry</a></li>
  </ul></nav>
</header>
<main id="main" tabindex="-1" class="certificate" data-record="{{.RecordID}}">
<p class="crumbs"><a href="/verify">← Verify a file</a> · <a href="/search">Search the registry</a></p>
<h1>Provenance certificate</h1>
<p class="hint">Record <code class="hash" data-copy>{{.RecordID}}</code></p>

<section class="verdict-box {{if or (eq .Status "revoked") (and .SigningKeyRevocation (ne .SigningKeyRevocation.Decision "valid"))}}tone-bad{{else if eq .BlockchainStatus "anchored"}}tone-ok{{else}}tone-caution{{end}}" aria-labelledby="cert-verdict">
{{if eq .Status "revoked"}}<h2 id="cert-verdict">Revoked by its signer: do not rely on it</h2>
<p><strong>This record was revoked{{if .RevokedAt}} at {{.RevokedAt}}{{end}} by its signer.</strong>{{if .RevokedReason}} Reason given: <span class="pre-line">{{.RevokedReason}}</span>{{end}}</p>
{{else if and .SigningKeyRevocation (ne .SigningKeyRevocation.Decision "valid")}}<h2 id="cert-verdict">Not authentic: the signing key was revoked</h2>
{{else if eq .BlockchainStatus "anchored"}}<h2 id="cert-verdict">Signed by {{.Signer.Display}} and anchored</h2>
{{else}}<h2 id="cert-verdict">Signed by {{.Signer.Display}}; anchoring pending</h2>{{end}}
{{with .SigningKeyRevocation}}<p><strong>{{if eq .Decision "valid"}}Still valid:{{else}}Not authentic:{{end}} {{.Detail}}.</strong>{{if .Reason}} Reason given: {{.Reason}}.{{end}}</p>{{end}}
<p>Signed by <strong>{{.Signer.Display}}</strong>, who declares its origin: <strong>{{with .OriginLabel}}{{.}}{{else}}{{.OriginType}}{{end}}</strong>. On record since {{human .TimeOfRecord}}{{if eq .TimeOfRecordBasis "anchored"}}, when it was anchored{{else}}, when the service received it{{end}}.</p>
{{with .Network}}{{if not .Public}}<p><strong>Anchoring network: {{.Name}}, a {{.Description}}.</strong></p>{{end}}{{end}}
<p class="hint">This certificate is about the record: whether a given copy of the picture is the one signed is for a verifier to say — <a href="#check">check a copy</a> below or on <a href="/verify">the verify page</a>.</p>
</section>

<section aria-labelledby="who-h"><h2 id="who-h">Who signed</h2>
<dl class="kv">
<dt>Organisation</dt><dd>{{.Signer.Display}} ({{.OrgTypeLabel}})</dd>
{{if .Signer.OrgVerified}}<dt>Verified domain</dt><dd>{{.Signer.VerifiedDomain}}</dd>{{end}}
<dt>Signing key</dt><dd>{{.KeyName}} (named by the signer)</dd>
<dt>Origin</dt><dd>{{with .OriginLabel}}{{.}} ({{end}}<code>{{.OriginType}}</code>{{if .OriginLabel}}){{end}}, declared by the signer</dd>
</dl></section>

<section aria-labelledby="when-h"><h2 id="when-h">When</h2>
<dl class="kv">
<dt>Time of record</dt><dd>{{human .TimeOfRecord}} ({{if eq .TimeOfRecordBasis "anchored"}}anchored on {{with .Network}}{{if .Public}}the public network {{.Name}}{{else}}the service's local development chain, not a public timestamp{{end}}{{else}}chain{{end}}{{else}}received by the service, not yet anchored{{end}})</dd>
{{if .ClaimedTimestamp}}<dt>Claimed signing time</dt><dd>{{human .ClaimedTimestamp}} (the signer's claim, not verified)</dd>{{else}}<dt>Signed at</dt><dd>{{human .Timestamp}}</dd>{{end}}
</dl></section>

<section aria-labelledby="where-h"><h2 id="where-h">Where it is anchored</h2>
{{with .Anchor}}<dl class="kv">
{{if $.NetworkLabel}}<dt>Network</dt><dd>{{$.NetworkLabel}}</dd>{{end}}
<dt>Block</dt><dd>{{.BlockNumber}}{{if .Network}} on {{.Network}}{{end}}{{if .ChainID}} (chain id {{.ChainID}}){{end}}</dd>
<dt>Transaction</dt><dd><code class="hash" data-copy>{{.TxHash}}</code>{{if $.ExplorerLink}} (<a href="{{$.ExplorerLink}}" rel="noopener">see it on the block explorer</a>){{end}}</dd>
<dt>Merkle root</dt><dd><code class="hash" data-copy>{{.MerkleRoot}}</code></dd>
<dt>Leaf</dt><dd>{{.LeafIndex}} of {{.TreeSize}}{{if .BatchID}} (batch <code class="hash">{{.BatchID}}</code>){{end}}</dd>
</dl>{{else}}<p>Not anchored yet: the record waits for the next anchoring batch{{with .NetworkLabel}} on {{.}}{{end}}.</p>{{end}}
</section>

{{if .Chain}}<section aria-labelledby="chain-h"><h2 id="chain-h">Provenance chain</h2>
{{with .ChainText}}<p data-chain>{{.}}</p>{{end}}
<ol class="timeline">{{range .Chain}}<li class="{{.Relation}}{{if eq .RecordID $.RecordID}} current{{end}}"><span class="what">{{if eq .Relation "original"}}{{.OrgName}}, {{human .CreatedAt}} (original{{else}}re-signed by {{.OrgName}} on {{human .CreatedAt}} (derivative{{if .Evidence}}, linked by {{range $i, $e := .Evidence}}{{if $i}}, {{end}}{{$e}}{{end}}{{end}}{{end}}{{if eq .Status "revoked"}}, revoked{{end}})</span> <code class="hash">{{.RecordID}}</code>{{if eq .RecordID $.RecordID}} <span class="tag">this certificate</span>{{end}}</li>
{{end}}</ol></section>{{end}}

<section id="check" aria-labelledby="check-h"><h2 id="check-h">Check a copy</h2>
<p>Have a copy of the picture? {{if .Assets}}Choose it here: it is checked in this browser and not sent; the result says whether it is the picture of this record, and shows what differs.{{else}}Check it on <a href="/verify">the verify page</a>.{{end}}</p>
{{if .Assets}}<div class="drop" id="drop"><p>Drop a picture here, or</p><label for="file" class="button secondary">Choose a picture</label>
<input id="file" type="file" accept="image/*" class="sr-only-input"></div>
<div id="progress" role="status" aria-live="polite"></div>
<div id="copy-result" hidden></div>{{end}}
</section>

<section aria-labelledby="how-h"><h2 id="how-h">Checking it yourself</h2>
<p>Everything below can be checked without trusting this service; the values are under “Raw fields”.</p>
<ol>
<li>Decode the signed record (base64) and check its signature, an Ed25519 signature over those bytes, under the signer public key.</li>
<li>Compute the leaf, SHA-256(0x00 ‖ record bytes ‖ signature), and fold the audit path into it (RFC 9162, with the leaf index and tree size above): the result must be the Merkle root.</li>
<li>Ask any node of the network for the transaction (<code>eth_getTransactionByHash</code>): its input must be <code>0x50564e31</code> followed by that root, in the block above.</li>
</ol>
<p>The same data as JSON: this address with <code>Accept: application/json</code>.</p>
</section>

<details class="raw"><summary>Raw fields</summary>
<dl class="kv">
<dt>Record id</dt><dd><code class="hash" data-copy>{{.RecordID}}</code></dd>
<dt>SHA-256 of the signed file</dt><dd><code class="hash" data-copy>{{.SHA256}}</code></dd>
<dt>Signer public key</dt><dd><code class="hash" data-copy>{{.SignerPublicKey}}</code></dd>
<dt>Key fingerprint</dt><dd><code class="hash">{{.Signer.KeyFingerprint}}</code></dd>
<dt>Organisation type</dt><dd><code>{{.OrgType}}</code></dd>
<dt>Anchoring status</dt><dd>{{.BlockchainStatus}}</dd>
<dt>Signature (signature_hex)</dt><dd><code class="hash" data-copy>{{.SignatureHex}}</code></dd>
{{if .Record}}<dt>Signed record (record, base64)</dt><dd><code class="hash" data-copy>{{.Record}}</code></dd>{{end}}
{{with .Anchor}}{{if .AuditPath}}<dt>Audit path</dt><dd>{{range .AuditPath}}<code class="hash">{{.}}</code> {{end}}</dd>{{end}}{{end}}
</dl>
<p>{{.VerifyOffline}}</p>
</details>
<p><a href="/verify">Check a file against the registry</a></p>
</main>
<footer class="foot">Provenant · content provenance · <a href="/">Home</a> · <a href="/verify">Verify</a></footer>
</body></html>
`))
