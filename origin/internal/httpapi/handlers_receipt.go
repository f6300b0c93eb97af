package httpapi

import (
	"github.com/valyala/fasthttp"
)

// CodeNotAnchored (409): the record has no receipt yet because its anchor
// does not verify yet; detail says where anchoring stands. Retry after the
// next batch.
const CodeNotAnchored = "record_not_anchored"

// registerReceipt adds the public receipt route. Like the certificate it
// revalidates on every use (no-cache + ETag).
func (a *API) registerReceipt() {
	h := validated("no-cache", a.handleReceipt)
	a.Handle(Route{Method: "GET", Path: "/api/v1/content-records/{id}/receipt", Auth: Public, CrossOrigin: true}, h)
	a.Handle(Route{Method: "HEAD", Path: "/api/v1/content-records/{id}/receipt", Auth: Public, CrossOrigin: true}, h)
}

// handleReceipt: GET /api/v1/content-records/{id}/receipt, the record's
// offline receipt (docs/receipt.md).
func (a *API) handleReceipt(ctx *fasthttp.RequestCtx) error {
	rc, err := a.cfg.Receipts.Receipt(Context(ctx), pathParam(ctx, "id"))
	if err != nil {
		return err
	}
	b, err := rc.Marshal()
	if err != nil {
		return err
	}
	return writeOK(ctx, "application/json", "", b)
}
