package httpapi

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/provenant/provenant/internal/ratelimit"
	"github.com/provenant/provenant/origin/internal/accounts"
	"github.com/provenant/provenant/origin/internal/content"
	"github.com/provenant/provenant/origin/internal/keys"
	"github.com/provenant/provenant/origin/internal/validate"
	"github.com/provenant/provenant/origin/internal/video"
	"github.com/provenant/provenant/shared/present"
	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/wire"
)

// multipartOverhead is the room allowed for part headers and boundaries
// on top of the file bytes of a single-file upload.
const multipartOverhead = 64 << 10

func (a *API) registerRecords() error {
	l := a.cfg.Limits
	var lims [4]ratelimit.Allower
	for i, p := range []ratelimit.Policy{l.Sign, l.Verify, l.SignBatch, l.SDKRegister} {
		lim, err := a.NewLimiter(p)
		if err != nil {
			return fmt.Errorf("httpapi: %w", err)
		}
		lims[i] = lim
	}
	sign, verify, batch, register := lims[0], lims[1], lims[2], lims[3]
	media := a.mediaBodyCap()
	a.Handle(Route{Method: "POST", Path: "/api/v1/sign", Auth: JWTOrAPIKey, Scope: keys.ScopeSign, Limiter: sign, LimitBy: ByCredential, Idempotent: true, MaxBody: media}, a.handleSign)
	a.Handle(Route{Method: "POST", Path: "/api/v1/verify", Auth: Public, Limiter: verify, LimitBy: ByIP, CrossOrigin: true, MaxBody: media}, a.handleVerify)
	if err := a.registerLookup(); err != nil {
		return err
	}
	a.Handle(Route{Method: "POST", Path: "/api/v1/register", Auth: JWTOrAPIKey, Scope: keys.ScopeSign, Limiter: register, LimitBy: ByCredential, Idempotent: true}, a.handleRegisterContent)
	a.Handle(Route{Method: "POST", Path: "/api/v1/sign-batch", Auth: APIKeyOnly, Scope: keys.ScopeSign, Limiter: batch, LimitBy: ByCredential, Idempotent: true, Class: ClassUpload}, a.handleSignBatch)
	a.Handle(Route{Method: "GET", Path: "/api/v1/content-records", Auth: APIKeyOrSession, Scope: keys.ScopeRead}, a.handleListRecords)
	a.Handle(Route{Method: "GET", Path: "/api/v1/content-records/public/search", Auth: Public}, a.handlePublicSearch)
	a.Handle(Route{Method: "GET", Path: "/api/v1/content-records/{id}", Auth: APIKeyOrSession, Scope: keys.ScopeRead}, a.handleGetRecord)
	// Certificates revalidate on every use (no-cache + ETag): a
	// revocation shows at once, and an unchanged one costs a 304.
	cert := validated("no-cache", a.handleCertificate)
	a.Handle(Route{Method: "GET", Path: "/api/v1/content-records/{id}/certificate", Auth: Public, CrossOrigin: true}, cert)
	a.Handle(Route{Method: "HEAD", Path: "/api/v1/content-records/{id}/certificate", Auth: Public, CrossOrigin: true}, cert)
	if a.cfg.Receipts != nil {
		a.registerReceipt()
	}
	if a.cfg.C2PA != nil {
		if err := a.registerC2PA(); err != nil {
			return err
		}
	}
	a.registerFiles()
	a.registerBadges()
	a.Handle(Route{Method: "DELETE", Path: "/api/v1/content-records/{id}", Auth: APIKeyOrSession, Scope: keys.ScopeSign}, a.handleRevokeRecord)
	a.Handle(Route{Method: "GET", Path: "/api/v1/dashboard/stats", Auth: JWTOnly}, a.handleDashboardStats)
	return nil
}

func (a *API) singleUpload(extraText ...string) uploadSpec {
	max := a.cfg.Records.Limits().MaxUploadBytes
	total := max + multipartOverhead
	if a.cfg.MaxBody > 0 {
		total = min(total, int64(a.cfg.MaxBody))
	}
	return uploadSpec{FileFields: []string{"file"}, TextFields: extraText, MaxFiles: 1, MaxFileBytes: max, MaxTotalBytes: total}
}

// mediaUpload is singleUpload for the routes that take a video as well
// as an image: a video part goes to a temporary file (never memory), up to
// the video size limit; an image part keeps the image cap.
func (a *API) mediaUpload(extraText ...string) uploadSpec {
	spec := a.singleUpload(extraText...)
	if c := a.mediaBodyCap(); c > 0 {
		spec.Spool = &spoolSpec{Match: video.Sniff, MaxBytes: a.cfg.Records.VideoMaxBytes(), Dir: a.cfg.SpoolDir}
		spec.MaxTotalBytes = max(spec.MaxTotalBytes, c)
	}
	return spec
}

// mediaBodyCap is the body cap of the routes that take a video (0 when the
// server has no video engine: they keep the server-wide cap).
func (a *API) mediaBodyCap() int64 {
	if vmax := a.cfg.Records.VideoMaxBytes(); vmax > 0 {
		return vmax + multipartOverhead
	}
	return 0
}

// readFileUpload reads a multipart upload that must carry a file: the
// form, which the caller closes, and its first file.
func readFileUpload(ctx *fasthttp.RequestCtx, spec uploadSpec) (*uploadForm, uploadFile, error) {
	form, err := readUpload(ctx, spec)
	if err != nil {
		return nil, uploadFile{}, err
	}
	if len(form.Files) == 0 {
		form.Close()
		return nil, uploadFile{}, FieldProblem("file", "is required")
	}
	return form, form.Files[0], nil
}

// handleSign: POST /api/v1/sign?signing_key_id=… (multipart: file,
// return_file, derivative_of, c2pa; the last three also as query
// parameters).
func (a *API) handleSign(ctx *fasthttp.RequestCtx) error {
	p, _ := PrincipalFrom(ctx)
	// A repeated signing_key_id could name different keys to different
	// layers; refuse it before reading the upload.
	if err := CheckQuery(ctx, "signing_key_id", "return_file", "derivative_of", "c2pa"); err != nil {
		return err
	}
	keyID := string(ctx.QueryArgs().Peek("signing_key_id"))
	if keyID == "" {
		return FieldProblem("signing_key_id", "is required")
	}
	form, file, err := readFileUpload(ctx, a.mediaUpload("return_file", "derivative_of", "c2pa"))
	if err != nil {
		return err
	}
	defer form.Close()
	retFile, err := parseBool("return_file", form.Fields["return_file"], false)
	if err != nil {
		return err
	}
	if q := ctx.QueryArgs().Peek("return_file"); len(q) > 0 && form.Fields["return_file"] == "" {
		if retFile, err = parseBool("return_file", string(q), false); err != nil {
			return err
		}
	}
	parent := form.Fields["derivative_of"]
	if parent == "" {
		parent = string(ctx.QueryArgs().Peek("derivative_of"))
	}
	if parent, err = parseParent("derivative_of", parent); err != nil {
		return err
	}
	withC2PA, err := c2paOption(ctx, form)
	if err != nil {
		return err
	}
	if file.Path != "" || video.Sniff(file.Data) {
		return a.signVideo(ctx, p.AccountID, keyID, file, retFile, parent)
	}
	res, err := a.cfg.Records.Sign(Context(ctx), content.SignInput{
		Owner: p.AccountID, SigningKeyID: keyID, File: file.Data, Filename: file.Filename, SHA256: &file.SHA256,
		DerivativeOf: parent, NoC2PA: !withC2PA,
	})
	if err != nil {
		return err
	}
	return writeSignResult(ctx, res, retFile)
}

// writeSignResult answers a new record (image or video) at its Location:
// its JSON, or with withFile the signed file itself.
func writeSignResult(ctx *fasthttp.RequestCtx, res *content.SignResult, withFile bool) error {
	ctx.Response.Header.Set("Location", "/api/v1/content-records/"+res.Record.ID)
	if !withFile {
		return WriteJSON(ctx, fasthttp.StatusCreated, res.Response())
	}
	return writeSignedFile(ctx, res)
}

// writeSignedFile answers with the watermarked file and the record's
// identifiers in headers.
func writeSignedFile(ctx *fasthttp.RequestCtx, res *content.SignResult) error {
	h := &ctx.Response.Header
	h.Set("Cache-Control", "no-store")
	h.Set("X-Record-Id", res.Record.ID)
	h.Set("X-Content-SHA256", res.Record.SHA256)
	h.Set("X-Original-SHA256", res.Record.OriginalSHA256)
	h.Set("X-Perceptual-Hash", res.Record.PerceptualHash)
	h.Set("X-Watermark-Payload", res.Record.WatermarkPayloadHex)
	h.Set("X-Watermark", res.Record.WatermarkState())
	if res.Record.WatermarkReason != "" {
		h.Set("X-Watermark-Reason", res.Record.WatermarkReason)
	}
	h.Set("X-Signature", res.Record.SignatureHex)
	h.Set("X-Blockchain-Status", res.Record.BlockchainStatus)
	if res.Record.ParentRecordID != "" {
		h.Set("X-Parent-Record-Id", res.Record.ParentRecordID)
	}
	if res.Record.C2PAManifestID != "" {
		h.Set("X-C2PA-Manifest-Id", res.Record.C2PAManifestID)
	}
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": signedName(res)}))
	ctx.SetContentType(res.ContentType)
	ctx.SetStatusCode(fasthttp.StatusCreated)
	if res.File == nil && res.Path != "" {
		// A video is sent from its file: the descriptor stays readable
		// after the request's directory is removed, and fasthttp closes
		// it once the body is written.
		if f, err := os.Open(res.Path); err == nil {
			if st, err := f.Stat(); err == nil {
				ctx.SetBodyStream(f, int(st.Size()))
				return nil
			}
			_ = f.Close()
		}
		return fmt.Errorf("httpapi: signed file %s not readable", res.Record.ID)
	}
	ctx.SetBody(res.File)
	return nil
}

func signedName(res *content.SignResult) string { return signedFileName(res.Record) }

// handleVerify: POST /api/v1/verify (multipart: file). Public.
func (a *API) handleVerify(ctx *fasthttp.RequestCtx) error {
	form, file, err := readFileUpload(ctx, a.mediaUpload())
	if err != nil {
		return err
	}
	defer form.Close()
	if file.Path != "" || video.Sniff(file.Data) {
		return a.verifyVideo(ctx, file)
	}
	res, err := a.cfg.Records.Verify(Context(ctx), file.Data, &file.SHA256)
	if err != nil {
		return err
	}
	return WriteJSON(ctx, fasthttp.StatusOK, res.Response)
}

// MaxBatchItems is the largest number of files in one sign-batch request;
// the whole request is also capped by the server's body cap.
const MaxBatchItems = 10

// batchItem and batchResponse are the sign-batch answer; the SDK decodes
// the same type.
type (
	batchItem     = wire.BatchItem[*Problem]
	batchResponse = wire.BatchResponse[*Problem]
)

// parseParent checks a declared parent record id ("" means none) and
// returns it in canonical form.
func parseParent(field, v string) (string, error) {
	if v == "" {
		return "", nil
	}
	id, err := record.ParseID(v)
	if err != nil {
		return "", FieldProblem(field, "must be a record id (UUID)")
	}
	return id.String(), nil
}

// batchParentField is the sign-batch text part that declares item i a
// derivative of an existing record (items are numbered from 0 in the order
// of their file parts).
func batchParentField(i int) string { return "derivative_of[" + strconv.Itoa(i) + "]" }

// handleSignBatch: POST /api/v1/sign-batch?signing_key_id=… (multipart:
// one or more "files" parts, or "file" parts, and optional
// "derivative_of[i]" parts). Each item is signed on its own; one bad file
// does not fail the others.
func (a *API) handleSignBatch(ctx *fasthttp.RequestCtx) error {
	p, _ := PrincipalFrom(ctx)
	if err := CheckQuery(ctx, "signing_key_id", "c2pa"); err != nil {
		return err
	}
	keyID := string(ctx.QueryArgs().Peek("signing_key_id"))
	if keyID == "" {
		return FieldProblem("signing_key_id", "is required")
	}
	// Check the key before reading megabytes of files.
	if k, err := a.cfg.Keys.GetSigningKey(Context(ctx), p.AccountID, keyID); err != nil {
		return err
	} else if k.RevokedAt != nil {
		return keys.ErrSigningKeyRevoked
	} else if k.Device() {
		return keys.ErrDeviceKey
	}
	parentFields := make([]string, MaxBatchItems)
	for i := range parentFields {
		parentFields[i] = batchParentField(i)
	}
	spec := a.singleUpload(append(parentFields, "c2pa")...)
	spec.FileFields, spec.MaxFiles = []string{"files", "file"}, MaxBatchItems
	if a.cfg.MaxBody > 0 {
		spec.MaxTotalBytes = int64(a.cfg.MaxBody)
	} else {
		spec.MaxTotalBytes = spec.MaxFileBytes
	}
	form, err := readUpload(ctx, spec)
	if err != nil {
		return err
	}
	if len(form.Files) == 0 {
		return FieldProblem("files", "is required")
	}
	withC2PA, err := c2paOption(ctx, form)
	if err != nil {
		return err
	}
	parents := make([]string, len(form.Files))
	for i := range MaxBatchItems {
		field := batchParentField(i)
		v, ok := form.Fields[field]
		if !ok {
			continue
		}
		if i >= len(form.Files) {
			return FieldProblem(field, "names no file of this batch")
		}
		if parents[i], err = parseParent(field, v); err != nil {
			return err
		}
	}
	out := batchResponse{Items: make([]batchItem, 0, len(form.Files))}
	for i, f := range form.Files {
		it := batchItem{Index: i, Filename: f.Filename}
		if video.Sniff(f.Data) {
			// A video can take minutes; batch items share one request.
			it.Status, it.Error = fasthttp.StatusUnsupportedMediaType, NewProblem(fasthttp.StatusUnsupportedMediaType, CodeVideoNotInBatch, "Videos are signed one at a time with POST /api/v1/sign")
			out.Items = append(out.Items, it)
			out.Failed++
			continue
		}
		// Under an Idempotency-Key each item's record commits with a
		// claim of its own: a retry of a batch cut by a crash answers the
		// items that committed from their records and signs the others.
		ictx, prior, err := a.batchItemContext(ctx, i)
		if err != nil {
			return err
		}
		var res *content.SignResult
		if prior != "" {
			res, err = a.claimedSignResult(ictx, p.AccountID, prior)
		} else {
			res, err = a.cfg.Records.Sign(ictx, content.SignInput{
				Owner: p.AccountID, SigningKeyID: keyID, File: f.Data, Filename: f.Filename, SHA256: &f.SHA256,
				DerivativeOf: parents[i], NoC2PA: !withC2PA,
			})
		}
		if err != nil {
			prob, internal := problemFor(err)
			if internal {
				a.log.Error("internal error", "route", "/api/v1/sign-batch", "item", i, "err", err)
			}
			it.Status, it.Error = prob.Status, prob
			out.Failed++
		} else {
			r := res.Response()
			it.Status, it.Result = fasthttp.StatusCreated, &r
			out.Succeeded++
		}
		out.Items = append(out.Items, it)
	}
	return WriteJSON(ctx, fasthttp.StatusOK, out)
}

// handleRegisterContent: POST /api/v1/register (JSON, hash-only).
func (a *API) handleRegisterContent(ctx *fasthttp.RequestCtx) error {
	p, _ := PrincipalFrom(ctx)
	var req wire.RegisterContentRequest
	if err := DecodeJSON(ctx, a.maxJSON, &req); err != nil {
		return err
	}
	r, err := a.cfg.Records.Register(Context(ctx), content.RegisterInput{
		Owner: p.AccountID, RecordID: req.RecordID, SHA256: req.SHA256, PerceptualHash: req.PerceptualHash,
		WatermarkPayloadHex: req.WatermarkPayloadHex, SignatureHex: req.SignatureHex, SigningKeyID: req.SigningKeyID,
		SignerPublicKey: req.SignerPublicKey, OriginType: req.OriginType, Timestamp: req.Timestamp, OriginalFilename: req.OriginalFilename,
		MediaType: req.MediaType, VideoFingerprint: req.VideoFingerprint, DerivativeOf: req.DerivativeOf,
	})
	if err != nil {
		return err
	}
	ctx.Response.Header.Set("Location", "/api/v1/content-records/"+r.ID)
	a.cfg.Records.Identify(Context(ctx), r)
	return WriteJSON(ctx, fasthttp.StatusCreated, toRecordView(r))
}

// recordView is the owner's view of a record (list and detail).
type recordView = wire.Record

func fmtTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(record.TimeFormat)
}

func toRecordView(r *content.Record) recordView {
	return recordView{
		ID: r.ID, RecordID: r.ID, SHA256: r.SHA256, OriginalSHA256: r.OriginalSHA256, PerceptualHash: r.PerceptualHash,
		WatermarkPayloadHex: r.WatermarkPayloadHex, Watermark: r.WatermarkState(), WatermarkReason: r.WatermarkReason,
		SignatureHex: r.SignatureHex, BlockchainStatus: r.BlockchainStatus,
		BlockchainTx: r.BlockchainTx, OriginalFilename: r.OriginalFilename, OriginType: r.OriginType,
		SigningKeyID: r.SigningKeyID, Signer: r.Signer, Source: r.Source, Status: r.Status,
		RevokedAt: fmtTime(r.RevokedAt), RevokedReason: r.RevokedReason, AnchoredAt: fmtTime(r.AnchoredAt),
		CreatedAt: r.CreatedAt.UTC().Format(record.TimeFormat), ParentRecordID: r.ParentRecordID, ParentEvidence: r.ParentEvidence,
		DownloadURL: r.FileURL(), ThumbnailURL: r.ThumbnailURL(),
	}
}

// recordQuery reads a record list's page (PageParams) and its filters
// (parseFilter): the owner's list filters by status, the public search by
// org_name; any other parameter is refused.
func recordQuery(ctx *fasthttp.RequestCtx, public bool) (cursor string, limit int, f content.Filter, err error) {
	byName := "status"
	if public {
		byName = "org_name"
	}
	if cursor, limit, err = PageParams(ctx, "origin_type", "blockchain_status", "sha256", byName, "from", "to"); err != nil {
		return "", 0, f, err
	}
	f, err = parseFilter(ctx, public)
	return cursor, limit, f, err
}

// parseFilter reads the list and search filters from the query string,
// reporting every invalid one at once.
func parseFilter(ctx *fasthttp.RequestCtx, public bool) (content.Filter, error) {
	q := ctx.QueryArgs()
	var f content.Filter
	var errs validate.Errors
	f.OriginType = string(q.Peek("origin_type"))
	if f.OriginType != "" {
		if _, ok := keys.LookupOriginType(f.OriginType); !ok {
			errs.Add("origin_type", "is not a known origin type code")
		}
	}
	f.BlockchainStatus = string(q.Peek("blockchain_status"))
	if f.BlockchainStatus != "" && f.BlockchainStatus != wire.StatusPending && f.BlockchainStatus != wire.StatusAnchored {
		errs.Add("blockchain_status", "must be pending or anchored")
	}
	if s := strings.ToLower(string(q.Peek("sha256"))); s != "" {
		if _, err := hex.DecodeString(s); err != nil || len(s) != 64 {
			errs.Add("sha256", "must be 64 hex digits")
		}
		f.SHA256 = s
	}
	if public {
		f.OrgName = strings.TrimSpace(string(q.Peek("org_name")))
		_ = errs.Check(validate.Text("org_name", f.OrgName, accounts.MaxOrgNameLen))
	} else {
		f.Status = string(q.Peek("status"))
		if f.Status != "" && f.Status != content.StatusActive && f.Status != content.StatusRevoked {
			errs.Add("status", "must be active or revoked")
		}
	}
	for _, d := range []struct {
		name string
		dst  *time.Time
		end  bool
	}{{"from", &f.From, false}, {"to", &f.To, true}} {
		v := string(q.Peek(d.name))
		if v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			day, derr := time.Parse(time.DateOnly, v)
			if derr != nil {
				errs.Add(d.name, "must be an RFC 3339 timestamp or a YYYY-MM-DD date")
				continue
			}
			t = day
			if d.end { // a date "to" includes that whole day
				t = day.Add(24 * time.Hour)
			}
		}
		*d.dst = t.UTC()
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		errs.Add("to", "must be after from")
	}
	return f, errs.Err()
}

// handleListRecords: GET /api/v1/content-records.
func (a *API) handleListRecords(ctx *fasthttp.RequestCtx) error {
	p, _ := PrincipalFrom(ctx)
	cursor, limit, f, err := recordQuery(ctx, false)
	if err != nil {
		return err
	}
	page, err := a.cfg.Records.List(Context(ctx), p.AccountID, cursor, limit, f)
	if err != nil {
		return err
	}
	a.cfg.Records.Identify(Context(ctx), page.Items...)
	return WriteJSON(ctx, fasthttp.StatusOK, listResponse(page.Items, page.Next, toRecordView))
}

// handlePublicSearch: GET /api/v1/content-records/public/search. Public;
// shows only PublicRecord fields.
func (a *API) handlePublicSearch(ctx *fasthttp.RequestCtx) error {
	cursor, limit, f, err := recordQuery(ctx, true)
	if err != nil {
		return err
	}
	page, err := a.cfg.Records.PublicSearch(Context(ctx), cursor, limit, f)
	if err != nil {
		return err
	}
	out := ListResponse[content.PublicRecord]{Items: page.Items, NextCursor: page.Next}
	if out.Items == nil {
		out.Items = []content.PublicRecord{}
	}
	return WriteJSON(ctx, fasthttp.StatusOK, out)
}

// handleGetRecord: GET /api/v1/content-records/{id}.
func (a *API) handleGetRecord(ctx *fasthttp.RequestCtx) error {
	p, _ := PrincipalFrom(ctx)
	d, err := a.cfg.Records.GetDetail(Context(ctx), p.AccountID, pathParam(ctx, "id"))
	if err != nil {
		return err
	}
	r := d.Record
	a.cfg.Records.Identify(Context(ctx), r)
	sg, err := r.Signed()
	if err != nil {
		return err
	}
	cert, err := (&record.Certificate{Signed: sg, Anchor: d.Anchor.Anchor()}).Wire()
	if err != nil {
		return err
	}
	cert.Network = d.Network
	out := wire.RecordDetail{
		Record: toRecordView(r), InputFormat: r.InputFormat, OutputFormat: r.OutputFormat, JPEGQuality: r.JPEGQuality,
		Width: r.Width, Height: r.Height, Canonical: base64.StdEncoding.EncodeToString(r.Canonical), Certificate: cert,
		Anchoring: wire.RecordAnchoring{Status: string(d.Anchor.Outcome), Detail: d.Anchor.Detail, Network: d.Network},
	}
	if d.Anchor.Proof != nil {
		if out.Anchoring.Proof, err = json.Marshal(d.Anchor.Proof); err != nil {
			return err
		}
	}
	return WriteJSON(ctx, fasthttp.StatusOK, out)
}

// handleRevokeRecord: DELETE /api/v1/content-records/{id}, optional JSON
// body {"reason": "..."}.
func (a *API) handleRevokeRecord(ctx *fasthttp.RequestCtx) error {
	p, _ := PrincipalFrom(ctx)
	var req wire.RevokeRecordRequest
	if ctx.Request.Header.ContentLength() != 0 { // a body is optional
		if err := DecodeJSON(ctx, a.maxJSON, &req); err != nil {
			return err
		}
	}
	r, err := a.cfg.Records.Revoke(Context(ctx), p.AccountID, pathParam(ctx, "id"), req.Reason)
	if err != nil {
		return err
	}
	a.cfg.Records.Identify(Context(ctx), r)
	return WriteJSON(ctx, fasthttp.StatusOK, toRecordView(r))
}

// certificateView is the public certificate and what only its HTML page
// shows.
type certificateView struct {
	wire.PublicCertificate
	// OriginLabel is OriginType's human label.
	OriginLabel string `json:"-"`
	// NetworkLabel names the network for a reader and ExplorerLink is the
	// transaction on a public network's explorer.
	NetworkLabel string `json:"-"`
	ExplorerLink string `json:"-"`
	// ChainText is Chain in the words every surface uses (shared/present).
	ChainText string `json:"-"`
}

// certChainText says a certificate's chain (oldest first, ending with
// record id) as shared/present says a verify answer's.
func certChainText(id string, chain []certChainLink) string {
	links := make([]wire.ChainLink, len(chain))
	for i, l := range chain {
		links[i] = wire.ChainLink{RecordID: l.RecordID, OrgName: l.OrgName, Relation: l.Relation, Evidence: l.Evidence, CreatedAt: l.CreatedAt}
	}
	return present.Present(wire.VerifyResponse{RecordID: id, Chain: links}, present.Options{}).Chain
}

// timeOfRecord fills the certificate's time of record and claimed time.
func (v *certificateView) timeOfRecord(r *content.Record) {
	if r.AnchoredAt != nil {
		v.TimeOfRecord, v.TimeOfRecordBasis = fmtTime(r.AnchoredAt), "anchored"
	} else {
		v.TimeOfRecord, v.TimeOfRecordBasis = r.CreatedAt.UTC().Format(record.TimeFormat), "received"
	}
	if r.Source == content.SourceRegister {
		v.ClaimedTimestamp = v.Timestamp
	}
}

type certChainLink = wire.CertificateLink

// handleCertificate: GET /api/v1/content-records/{id}/certificate.
// Public; JSON by default, HTML (escaped by html/template) when the client
// prefers text/html.
func (a *API) handleCertificate(ctx *fasthttp.RequestCtx) error {
	c, r, err := a.cfg.Records.Certificate(Context(ctx), pathParam(ctx, "id"))
	if err != nil {
		return err
	}
	a.cfg.Records.Identify(Context(ctx), r)
	v := certificateView{PublicCertificate: wire.PublicCertificate{Certificate: c, Signer: r.Signer, OriginDeclared: true, Status: r.Status, RevokedAt: fmtTime(r.RevokedAt), RevokedReason: r.RevokedReason, OriginType: r.OriginType,
		OrgType: r.Signer.OrgType, KeyName: r.Signer.KeyName, BlockchainStatus: r.BlockchainStatus, BlockchainTx: r.BlockchainTx,
		VerifyOffline:  "record is the canonical signed record (base64); signature_hex is its Ed25519 signature under signer_public_key.",
		ParentRecordID: r.ParentRecordID, SigningKeyRevocation: a.cfg.Records.KeyRevocationOf(Context(ctx), r)}}
	v.timeOfRecord(r)
	if n := c.Network; n != nil {
		v.NetworkLabel = n.Label()
		if n.Public && r.BlockchainTx != "" {
			v.ExplorerLink = n.ExplorerTx(r.BlockchainTx)
		}
	}
	if ot, ok := keys.LookupOriginType(r.OriginType); ok {
		v.OriginLabel = ot.Label
	}
	if r.ParentRecordID != "" {
		lineage, err := a.cfg.Records.Lineage(Context(ctx), r)
		if err != nil {
			return err
		}
		for i, l := range lineage {
			rel := "derivative"
			if i == 0 {
				rel = "original"
			}
			v.Chain = append(v.Chain, certChainLink{RecordID: l.ID, OrgName: l.Signer.OrgName,
				CreatedAt: l.CreatedAt.UTC().Format(record.TimeFormat), Relation: rel, Evidence: l.ParentEvidence, Status: l.Status})
		}
	}
	if prefersHTML(ctx.Request.Header.Peek("Accept")) {
		v.ChainText = certChainText(v.RecordID, v.Chain)
		return a.writeCertificatePage(ctx, v)
	}
	ctx.Response.Header.Set("Vary", "Accept")
	return WriteJSON(ctx, fasthttp.StatusOK, v)
}

// prefersHTML reports whether an Accept header ranks text/html above
// application/json (ties go to JSON).
func prefersHTML(accept []byte) bool {
	html, js := -1.0, -1.0
	for _, part := range strings.Split(string(accept), ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if s, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				q = f
			}
		}
		switch mt {
		case "text/html":
			html = max(html, q)
		case "application/json", "*/*", "application/*":
			js = max(js, q)
		}
	}
	return html > 0 && html > js
}

type recentRecord = wire.RecentRecord

type dashboardStats = wire.DashboardStats

type dailyCount = wire.DailyCount

// handleDashboardStats: GET /api/v1/dashboard/stats (JWT).
func (a *API) handleDashboardStats(ctx *fasthttp.RequestCtx) error {
	p, _ := PrincipalFrom(ctx)
	st, err := a.cfg.Records.Stats(Context(ctx), p.AccountID)
	if err != nil {
		return err
	}
	out := dashboardStats{TotalSigned: st.TotalSigned, TotalVerified: st.TotalVerified, BlockchainAnchored: st.BlockchainAnchored,
		PendingBatch: st.PendingBatch, Revoked: st.Revoked, RecentRecords: make([]recentRecord, 0, len(st.Recent))}
	for _, r := range st.Recent {
		out.RecentRecords = append(out.RecentRecords, recentRecord{ID: r.ID, SHA256: r.SHA256,
			CreatedAt: r.CreatedAt.UTC().Format(record.TimeFormat), BlockchainTx: r.BlockchainTx,
			OriginalFilename: r.OriginalFilename, ThumbnailURL: r.ThumbnailURL()})
	}
	out.Daily = make([]dailyCount, 0, len(st.Daily))
	for _, d := range st.Daily {
		out.Daily = append(out.Daily, dailyCount{Date: d.Date, Signed: d.Signed, Verified: d.Verified})
	}
	return WriteJSON(ctx, fasthttp.StatusOK, out)
}
