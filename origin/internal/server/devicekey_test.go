package server

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"testing"
	"time"

	"github.com/provenant/provenant/shared/record"
	"github.com/provenant/provenant/shared/watermark"
)

// deviceSign does on the "device" what an SDK's local signing does:
// embed the watermark, encode, hash, build the canonical version 1 record
// (docs/record-format.md) and sign it. It returns the signed file and the
// register request.
func deviceSign(t *testing.T, now time.Time, priv ed25519.PrivateKey, org, originType string, picture []byte, payload uint64) ([]byte, map[string]any) {
	t.Helper()
	out := watermarked(t, picture, watermark.Payload(payload))
	ph := phashOf(t, out)
	var idb [16]byte
	_, _ = rand.Read(idb[:])
	idb[6], idb[8] = idb[6]&0x0f|0x40, idb[8]&0x3f|0x80
	ts := now.UTC().Truncate(time.Millisecond)
	r := &record.Record{ID: record.ID(idb), SHA256: sha256.Sum256(out), PerceptualHash: ph, SignerPublicKey: priv.Public().(ed25519.PublicKey),
		Timestamp: ts, OriginType: originType, Org: org, WatermarkPayload: binary.BigEndian.AppendUint64(nil, payload)}
	s, err := record.Sign(priv, r)
	if err != nil {
		t.Fatal(err)
	}
	return out, map[string]any{
		"record_id": r.ID.String(), "sha256": hex.EncodeToString(r.SHA256[:]), "perceptual_hash": ph.String(),
		"watermark_payload_hex": hex.EncodeToString(r.WatermarkPayload), "signature_hex": hex.EncodeToString(s.Signature),
		"signer_public_key": hex.EncodeToString(r.SignerPublicKey), "timestamp": ts.Format(record.TimeFormat),
		"original_filename": "device.jpg",
	}
}

// TestDeviceKey: a key registered by its public half has custody device;
// the service refuses to sign with it (sign and sign-batch); a record
// signed on the device registers and the signed file verifies authentic
// at the origin; the same public key cannot be registered twice.
func TestDeviceKey(t *testing.T) {
	ts := startServer(t, "", nil)
	a := ts.register("device@example.com", "correct horse battery staple")
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	pubHex := hex.EncodeToString(pub)
	r := ts.do("POST", "/api/v1/keys/signing-keys", a.token, map[string]any{"name": "Field camera", "origin_type": "camera_image", "public_key_hex": pubHex})
	ts.mustStatus(r, 201, "create device key")
	k := r.json(t)
	if k["custody"] != "device" || k["public_key_hex"] != pubHex {
		t.Fatalf("device key = %v, want custody device and our public key", k)
	}
	keyID := k["id"].(string)
	svc := ts.do("POST", "/api/v1/keys/signing-keys", a.token, map[string]any{"name": "Desk", "origin_type": "camera_image"}).json(t)
	if svc["custody"] != "service" {
		t.Errorf("service key custody %v, want service", svc["custody"])
	}
	list := ts.do("GET", "/api/v1/keys/signing-keys", a.token, nil).json(t)
	for _, it := range list["items"].([]any) {
		m := it.(map[string]any)
		if want := map[bool]string{true: "device", false: "service"}[m["id"] == keyID]; m["custody"] != want {
			t.Errorf("listed key %v custody %v, want %s", m["id"], m["custody"], want)
		}
	}

	for _, tc := range []struct {
		name string
		body map[string]any
		code int
	}{
		{"same public key again", map[string]any{"name": "Copy", "origin_type": "camera_image", "public_key_hex": pubHex}, 409},
		{"short", map[string]any{"name": "Bad", "origin_type": "camera_image", "public_key_hex": pubHex[:62]}, 400},
		{"upper case", map[string]any{"name": "Bad", "origin_type": "camera_image", "public_key_hex": "AB" + pubHex[2:]}, 400},
		{"all zero", map[string]any{"name": "Bad", "origin_type": "camera_image", "public_key_hex": hex.EncodeToString(make([]byte, 32))}, 400},
	} {
		r := ts.do("POST", "/api/v1/keys/signing-keys", a.token, tc.body)
		if r.status != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.name, r.status, r.body, tc.code)
		}
	}
	other := ts.register("other@example.com", "correct horse battery staple")
	r = ts.do("POST", "/api/v1/keys/signing-keys", other.token, map[string]any{"name": "Stolen", "origin_type": "camera_image", "public_key_hex": pubHex})
	if r.status != 409 || r.problemCode(t) != "public_key_taken" {
		t.Errorf("another account claiming the device's public key: %d %s, want 409 public_key_taken", r.status, r.body)
	}

	apiKey, _ := ts.createAPIKey(a.token, map[string]any{"name": "device sdk"})
	pic := photo(t, 41, 384, 288)
	r = ts.upload("/api/v1/sign?signing_key_id="+keyID, apiKey, []namedFile{{"file", "p.jpg", pic}}, nil)
	if r.status != 422 || r.problemCode(t) != "device_key_cannot_sign" {
		t.Errorf("sign with a device key: %d %s, want 422 device_key_cannot_sign", r.status, r.body)
	}
	r = ts.upload("/api/v1/sign-batch?signing_key_id="+keyID, apiKey, []namedFile{{"files", "p.jpg", pic}}, nil)
	if r.status != 422 || r.problemCode(t) != "device_key_cannot_sign" {
		t.Errorf("sign-batch with a device key: %d %s, want 422 device_key_cannot_sign", r.status, r.body)
	}

	me := ts.do("GET", "/api/v1/auth/me", a.token, nil).json(t)
	org, _ := me["org_name"].(string)
	signed, req := deviceSign(t, ts.clock.Now(), priv, org, "camera_image", pic, 0x1234_5678_9abc_def0)
	req["signing_key_id"] = keyID
	r = ts.do("POST", "/api/v1/register", apiKey, req)
	ts.mustStatus(r, 201, "register a record signed on the device")

	v := ts.verifyHonest(signed)
	if !v.Authentic || v.RecordID != req["record_id"] {
		t.Errorf("verify of the device-signed file: authentic %v record %q, want authentic record %s:\n%s", v.Authentic, v.RecordID, req["record_id"], v.raw)
	}

	// A signature by another key does not register under the device key.
	_, wrong, _ := ed25519.GenerateKey(rand.Reader)
	_, forged := deviceSign(t, ts.clock.Now(), wrong, org, "camera_image", photo(t, 42, 384, 288), 0x0fed_cba9_8765_4321)
	forged["signing_key_id"], forged["signer_public_key"] = keyID, pubHex
	r = ts.do("POST", "/api/v1/register", apiKey, forged)
	if r.status != 422 || r.problemCode(t) != "invalid_signature" {
		t.Errorf("register a record not signed by the device key: %d %s, want 422 invalid_signature", r.status, r.body)
	}
}
