package c2patest

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/provenant/provenant/internal/testtool"
	"github.com/provenant/provenant/shared/c2pa"
)

// ReaderPackage is the npm package (pinned) of the independent reader;
// .ci/run installs it under .ci/node/c2pa.
const ReaderPackage = "@trustnxt/c2pa-ts@0.9.4"

// Result is what the independent reader reports about one file.
type Result struct {
	Reader         string            `json:"reader"`
	Format         string            `json:"format"`
	Manifests      []ReaderManifest  `json:"manifests"`
	ActiveManifest string            `json:"activeManifest"`
	Validation     *ReaderValidation `json:"validation"`
	Raw            json.RawMessage   `json:"-"`
}

// ReaderManifest is one manifest of the store as the reader parsed it.
type ReaderManifest struct {
	Label          string            `json:"label"`
	ClaimVersion   int               `json:"claimVersion"`
	ClaimGenerator string            `json:"claimGenerator"`
	Title          string            `json:"title"`
	Format         string            `json:"format"`
	InstanceID     string            `json:"instanceID"`
	Signer         string            `json:"signer"`
	Issuer         string            `json:"issuer"`
	Assertions     []ReaderAssertion `json:"assertions"`
}

// ReaderAssertion is one assertion, its CBOR content as JSON (byte strings
// in hex).
type ReaderAssertion struct {
	Label   string          `json:"label"`
	Content json.RawMessage `json:"content"`
}

// ReaderValidation is the reader's validation of the active manifest.
type ReaderValidation struct {
	IsValid       bool          `json:"isValid"`
	StatusEntries []ReaderEntry `json:"statusEntries"`
}

// ReaderEntry is one C2PA validation status entry.
type ReaderEntry struct {
	Code        string `json:"code"`
	Success     bool   `json:"success"`
	URL         string `json:"url"`
	Explanation string `json:"explanation"`
}

// Manifest returns the manifest with the given label, or nil.
func (r *Result) Manifest(label string) *ReaderManifest {
	for i := range r.Manifests {
		if r.Manifests[i].Label == label {
			return &r.Manifests[i]
		}
	}
	return nil
}

// Assertion returns the first assertion with the given label, or nil.
func (m *ReaderManifest) Assertion(label string) *ReaderAssertion {
	for i := range m.Assertions {
		if m.Assertions[i].Label == label {
			return &m.Assertions[i]
		}
	}
	return nil
}

// Failures returns the codes of the failed status entries.
func (r *Result) Failures() []string {
	var out []string
	if r.Validation == nil {
		return nil
	}
	for _, e := range r.Validation.StatusEntries {
		if !e.Success {
			out = append(out, e.Code)
		}
	}
	return out
}

// Has reports whether the reader reported code (success or failure).
func (r *Result) Has(code string) bool {
	if r.Validation == nil {
		return false
	}
	for _, e := range r.Validation.StatusEntries {
		if e.Code == code {
			return true
		}
	}
	return false
}

type reader struct{ node, modules, script string }

// findReader locates node, the installed npm package and the script;
// the reason is set when something is missing.
func findReader() (reader, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return reader{}, fmt.Errorf("node not in PATH: %w", err)
	}
	root, err := repoRoot()
	if err != nil {
		return reader{}, err
	}
	modules := os.Getenv("PROVENANT_C2PA_READER")
	if modules == "" {
		modules = filepath.Join(root, ".ci", "node", "c2pa", "node_modules")
	}
	if _, err := os.Stat(filepath.Join(modules, "@trustnxt", "c2pa-ts", "package.json")); err != nil {
		return reader{}, fmt.Errorf("%s not installed in %s: %w", ReaderPackage, modules, err)
	}
	return reader{node: node, modules: modules, script: filepath.Join(root, "shared", "c2pa", "testdata", "reader", "reader.mjs")}, nil
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(b, []byte("module github.com/provenant/provenant\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (go.mod) not found above the working directory")
		}
		dir = parent
	}
}

// requireReader returns the reader, skipping the test when it is missing
// (failing it under CI, where .ci/run installs it).
func requireReader(t testing.TB) reader {
	t.Helper()
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("the independent C2PA reader runs as a node process: native builds only")
	}
	r, err := findReader()
	if err != nil {
		testtool.Missing(t, "independent C2PA reader unavailable (%v); run .ci/run or npm install --prefix .ci/node/c2pa %s", err, ReaderPackage)
	}
	return r
}

func (r reader) run(t testing.TB, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(r.node, append([]string{r.script, r.modules}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("c2pa reader %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// Read runs the independent reader on the file at path and returns its
// report. It skips the test when node or the npm package is missing,
// except under CI (CI set), where it fails.
func Read(t testing.TB, path string) *Result {
	t.Helper()
	out := requireReader(t).run(t, "read", path)
	var res Result
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("c2pa reader output: %v\n%s", err, out)
	}
	res.Raw = out
	return &res
}

// ReadBytes writes file to a temporary file and reads it.
func ReadBytes(t testing.TB, file []byte, ext string) *Result {
	t.Helper()
	return Read(t, writeFile(t, t.TempDir(), "asset"+ext, file))
}

// writeFile writes b to dir/name, readable by this user only, and returns
// its path; it fails t if it cannot.
func writeFile(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// ThirdParty returns file carrying a manifest made by the independent
// reader's own signing code (a v2 claim with c2pa.created by a digital
// capture, signed ES256 by s), and that manifest's label: a stand-in for a
// camera's credentials.
func ThirdParty(t testing.TB, file []byte, ext string, s c2pa.Signer) ([]byte, string) {
	t.Helper()
	r := requireReader(t)
	dir := t.TempDir()
	write := func(name string, b []byte) string { return writeFile(t, dir, name, b) }
	key, err := x509.MarshalPKCS8PrivateKey(s.Key)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"sign", write("in"+ext, file), filepath.Join(dir, "out"+ext),
		write("leaf.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Chain[0].Raw})),
		write("key.pem", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}))}
	if len(s.Chain) > 1 {
		args = append(args, write("ca.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Chain[1].Raw})))
	}
	out := r.run(t, args...)
	var res struct {
		Label string `json:"label"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("c2pa reader sign output: %v\n%s", err, out)
	}
	signed, err := os.ReadFile(filepath.Join(dir, "out"+ext))
	if err != nil {
		t.Fatal(err)
	}
	return signed, res.Label
}
