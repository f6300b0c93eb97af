package client_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/provenant/provenant/client"
	"github.com/provenant/provenant/shared/wire"
)

// Sign a file with an API key and keep the watermarked output.
func Example_signFile() {
	ctx := context.Background()
	c, err := client.New(client.Config{BaseURL: "https://provenant.example", Token: os.Getenv("PROVENANT_API_KEY")})
	if err != nil {
		log.Fatal(err)
	}
	up, err := client.FileUpload("photo.jpg") // streamed from disk
	if err != nil {
		log.Fatal(err)
	}
	out, err := os.Create("photo.signed.jpg")
	if err != nil {
		log.Fatal(err)
	}
	defer out.Close()
	signed, err := c.SignFile(ctx, client.SignRequest{File: up, SigningKeyID: "3bf7b1ef-29c1-42f7-bf2c-4f6911c73fdb"}, out)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("record", signed.RecordID, "sha256", signed.SHA256)
}

// Verify a file by upload.
func ExampleClient_Verify() {
	c, err := client.New(client.Config{BaseURL: "https://provenant.example"})
	if err != nil {
		log.Fatal(err)
	}
	up, err := client.FileUpload("downloaded.jpg")
	if err != nil {
		log.Fatal(err)
	}
	v, err := c.Verify(context.Background(), up)
	if err != nil {
		log.Fatal(err)
	}
	if v.Authentic {
		fmt.Println("signed by", v.Signer.Display, "record", v.RecordID)
	} else {
		fmt.Println("not authentic:", v.Checks.Watermark.Details)
	}
}

// Verify a file without sending it: only its facts go to the origin, and
// the candidates' signatures and proofs are checked here.
func ExampleClient_VerifyLocal() {
	c, err := client.New(client.Config{BaseURL: "https://provenant.example"})
	if err != nil {
		log.Fatal(err)
	}
	b, err := os.ReadFile("downloaded.jpg")
	if err != nil {
		log.Fatal(err)
	}
	v, err := c.VerifyLocal(context.Background(), b, client.LocalOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("authentic:", v.Response.Authentic, "match:", v.Response.Match)
}

// Iterate over every record, page by page.
func ExampleAll() {
	ctx := context.Background()
	c, err := client.New(client.Config{BaseURL: "https://provenant.example", Token: os.Getenv("PROVENANT_API_KEY")})
	if err != nil {
		log.Fatal(err)
	}
	revoked := client.RecordFilter{Status: "revoked"}
	for r, err := range client.All(ctx, func(ctx context.Context, p client.PageOptions) (*client.Page[client.Record], error) {
		return c.ListRecords(ctx, revoked, p)
	}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(r.ID, r.RevokedAt, r.RevokedReason)
	}
}

// Branch on the problem's stable code with errors.As.
func ExampleError() {
	// An origin that refuses every request as another account's content.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusConflict)
		fmt.Fprint(w, `{"type":"urn:provenant:problem:already_signed","title":"The upload is content another account already signed",`+
			`"status":409,"code":"already_signed","record_id":"0b7e4c2a-5d1f-4e8b-9a3c-2f6d8e1b4a7c"}`)
	}))
	defer srv.Close()
	c, _ := client.New(client.Config{BaseURL: srv.URL, Token: "iai_example"})
	_, err := c.Sign(context.Background(), client.SignRequest{File: client.BytesUpload("a.jpg", []byte("…")), SigningKeyID: "k"})
	var perr *client.Error
	if errors.As(err, &perr) && perr.Code == "already_signed" {
		fmt.Println(perr.Status, "already signed as record", perr.RecordID)
	}
	// Output: 409 already signed as record 0b7e4c2a-5d1f-4e8b-9a3c-2f6d8e1b4a7c
}

// Check a receipt offline, then its anchor on a chain node.
func ExampleVerifyReceipt() {
	ctx := context.Background()
	c, err := client.New(client.Config{BaseURL: "https://provenant.example"})
	if err != nil {
		log.Fatal(err)
	}
	b, err := c.ReceiptBytes(ctx, "0b7e4c2a-5d1f-4e8b-9a3c-2f6d8e1b4a7c")
	if err != nil {
		log.Fatal(err) // record_not_anchored before the record's batch is anchored
	}
	chk, err := client.VerifyReceipt(ctx, b, client.NewRPCChain("http://127.0.0.1:8545", nil))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("signed by", chk.Result.Record.Org, "anchored with", chk.Confirmations(), "confirmations")
}

// Sign a picture on this machine with a device key and register it: the
// file never leaves the machine.
func ExampleClient_SignLocal() {
	ctx := context.Background()
	c, err := client.New(client.Config{BaseURL: "https://provenant.example", Token: os.Getenv("PROVENANT_API_KEY")})
	if err != nil {
		log.Fatal(err)
	}
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		log.Fatal(err)
	}
	// Once, with a session: register the public half as a device key.
	jwt := c.WithToken(os.Getenv("PROVENANT_SESSION"))
	key, err := jwt.CreateSigningKey(ctx, client.CreateSigningKeyRequest{Name: "field camera", OriginType: "camera_image", PublicKeyHex: hex.EncodeToString(pub)})
	if err != nil {
		log.Fatal(err)
	}
	photo, err := os.ReadFile("photo.jpg")
	if err != nil {
		log.Fatal(err)
	}
	signed, rec, err := c.SignLocal(ctx, client.LocalSignRequest{File: photo, Filename: "photo.jpg", Key: priv,
		SigningKeyID: key.ID, OrgName: "Example News", OriginType: "camera_image"})
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("photo.signed"+signed.Ext, signed.File, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Println("registered record", rec.ID)
}

// Say a verdict in the words every Provenant surface uses.
func ExampleDescribe() {
	v := &client.VerifyResponse{
		Authentic: true, Match: "reencoded", RecordID: "7b7c2f36-0d6f-4b8e-9d55-8f1b9a0e5c11",
		Signer: &wire.Signer{OrgName: "Example News", Display: "Example News"},
		Checks: wire.Checks{
			Watermark:      wire.Check{Passed: true, Details: "watermark payload 00000000000000ff matches record 7b7c2f36-0d6f-4b8e-9d55-8f1b9a0e5c11"},
			SHA256:         wire.Check{Details: "no exact SHA-256 match"},
			PerceptualHash: wire.Check{Passed: true, Details: "near perceptual hash match (distance 6/256)"},
			Blockchain:     wire.Check{Details: "pending: the record's batch is not anchored yet"},
		},
	}
	p := client.Describe(v)
	fmt.Println(p.Headline)
	for _, c := range p.Checks {
		fmt.Printf("%s: %s (%s)\n", c.Label, c.State, c.Summary)
	}
	// Output:
	// Authentic — the same picture, re-encoded or resized
	// Watermark: passed (The record's watermark is in this file)
	// Exact file (SHA-256): not_applicable (Bytes differ: re-encoded or resized)
	// Picture (perceptual hash): passed (The picture matches the signed picture)
	// Blockchain anchoring: not_applicable (Anchoring pending)
}
