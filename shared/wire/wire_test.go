package wire

import (
	"encoding/json"
	"testing"
	"time"
)

// TestJSONNames pins the JSON field names the API contract fixes (docs/api.md).
func TestJSONNames(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"verify", VerifyResponse{Authentic: true, Confidence: 0.95, Origin: &Origin{Category: "camera", Code: "camera_image", Label: "Camera image", Declared: true},
			Signer: &Signer{OrgName: "Org", OrgType: "news_org", DeviceID: "dev1", PublicKey: "ab", KeyName: "key",
				OrgVerified: true, VerifiedDomain: "org.example", KeyFingerprint: "0123456789abcdef", NameShared: true, Display: "Org (verified domain org.example, key 0123456789abcdef)"}, BlockchainTx: "0x1", Timestamp: "2026-11-22T12:00:00.000Z", Match: "reencoded"},
			`{"authentic":true,"confidence":0.95,"origin":{"category":"camera","code":"camera_image","label":"Camera image","declared":true},` +
				`"signer":{"org_name":"Org","org_type":"news_org","device_id":"dev1","public_key":"ab","key_name":"key",` +
				`"org_verified":true,"verified_domain":"org.example","key_fingerprint":"0123456789abcdef","name_shared":true,` +
				`"display":"Org (verified domain org.example, key 0123456789abcdef)"},` +
				`"blockchain_tx":"0x1","timestamp":"2026-11-22T12:00:00.000Z","checks":{"watermark":{"passed":false,"details":""},` +
				`"sha256":{"passed":false,"details":""},"perceptual_hash":{"passed":false,"details":""},"blockchain":{"passed":false,"details":""}},"match":"reencoded"}`},
		{"verify not authentic, pending", VerifyResponse{Match: "none", Checks: Checks{Watermark: Check{Details: "not applicable: x", NotApplicable: true}}},
			`{"authentic":false,"confidence":0,"origin":null,"signer":null,"blockchain_tx":"","timestamp":"","checks":{"watermark":{"passed":false,"details":"not applicable: x","not_applicable":true},` +
				`"sha256":{"passed":false,"details":""},"perceptual_hash":{"passed":false,"details":""},"blockchain":{"passed":false,"details":""}},"match":"none"}`},
		{"sign", SignResponse{RecordID: "r", SHA256: "s", PerceptualHash: "p", WatermarkPayloadHex: "w", Watermark: "embedded", SignatureHex: "g", BlockchainStatus: StatusPending,
			Certificate: Certificate{RecordID: "r", SHA256: "s", SignerPublicKey: "k", OrgName: "o", Timestamp: "t"}},
			`{"record_id":"r","sha256":"s","perceptual_hash":"p","watermark_payload_hex":"w","watermark":"embedded","signature_hex":"g","blockchain_status":"pending",` +
				`"certificate":{"record_id":"r","sha256":"s","signer_public_key":"k","org_name":"o","timestamp":"t"}}`},
		{"sign-batch", BatchResponse[*Problem]{Items: []BatchItem[*Problem]{
			{Index: 0, Filename: "a.jpg", Status: 201, Result: &SignResponse{RecordID: "r", BlockchainStatus: StatusPending}},
			{Index: 1, Filename: "b.mp4", Status: 415, Error: &Problem{Type: "urn:provenant:problem:video_not_in_batch", Title: "t", Status: 415, Code: "video_not_in_batch"}},
		}, Succeeded: 1, Failed: 1},
			`{"items":[{"index":0,"filename":"a.jpg","status":201,"result":{"record_id":"r","sha256":"","perceptual_hash":"","watermark_payload_hex":"","watermark":"","signature_hex":"","blockchain_status":"pending",` +
				`"certificate":{"record_id":"","sha256":"","signer_public_key":"","org_name":"","timestamp":""}}},` +
				`{"index":1,"filename":"b.mp4","status":415,"error":{"type":"urn:provenant:problem:video_not_in_batch","title":"t","status":415,"code":"video_not_in_batch"}}],"succeeded":1,"failed":1}`},
		// An image registration sends none of the optional members, as the
		// SDK did before the type was shared with the origin.
		{"register image", RegisterContentRequest{RecordID: "r", SHA256: "s", PerceptualHash: "p", SignatureHex: "g", Timestamp: "t"},
			`{"record_id":"r","sha256":"s","perceptual_hash":"p","signature_hex":"g","timestamp":"t"}`},
		// The SDK sends the cutoff in UTC; no member at all when unset.
		{"revoke signing key", RevokeSigningKeyRequest{Reason: "stolen", CompromisedSince: new(time.Date(2026, 3, 4, 10, 0, 0, 500, time.UTC))},
			`{"reason":"stolen","compromised_since":"2026-03-04T10:00:00.0000005Z"}`},
		{"revoke signing key, now", RevokeSigningKeyRequest{}, `{}`},
		{"session", Session{AccessToken: "a", TokenType: "bearer", ExpiresIn: 60, User: User{ID: "u", Email: "e", OrgName: "o", OrgType: "news_org"}},
			`{"access_token":"a","token_type":"bearer","expires_in":60,"expires_at":"0001-01-01T00:00:00Z","user":{"id":"u","email":"e","org_name":"o","org_type":"news_org","created_at":"0001-01-01T00:00:00Z"}}`},
		{"empty page", Page[User]{Items: []User{}}, `{"items":[]}`},
		// The secret follows the endpoint's members, as before the endpoint
		// was its own type.
		{"webhook", Webhook{WebhookEndpoint: WebhookEndpoint{ID: "w", URL: "https://example.com/h", Events: []string{"content.signed"}, Active: true}, Secret: "s"},
			`{"id":"w","url":"https://example.com/h","events":["content.signed"],"active":true,"created_at":"0001-01-01T00:00:00Z","updated_at":"0001-01-01T00:00:00Z","secret":"s"}`},
		{"certificate", PublicCertificate{Certificate: Certificate{RecordID: "r", SHA256: "s", SignerPublicKey: "k", OrgName: "o", Timestamp: "t"},
			Signer: Signer{OrgName: "o"}, OriginDeclared: true, Status: "active", OriginType: "camera_image", OrgType: "news_org", KeyName: "cam",
			BlockchainStatus: StatusPending, VerifyOffline: "v", TimeOfRecord: "t", TimeOfRecordBasis: "received"},
			`{"record_id":"r","sha256":"s","signer_public_key":"k","org_name":"o","timestamp":"t","signer":{"org_name":"o","org_type":"","device_id":"","public_key":"","key_name":"","org_verified":false},` +
				`"origin_declared":true,"status":"active","origin_type":"camera_image","org_type":"news_org","key_name":"cam","blockchain_status":"pending","verify_offline":"v",` +
				`"time_of_record":"t","time_of_record_basis":"received"}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("json.Marshal(%s) =\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}
