package server

import (
	"archive/tar"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/provenant/provenant/origin/internal/anchor/ethchain"
	"github.com/provenant/provenant/origin/internal/store"
)

// BackupFormat names the archive layout Backup writes and Restore reads.
const BackupFormat = "provenant-backup/1"

// Entries of a backup archive (a tar file), in the order written.
const (
	backupManifestName = "manifest.json"
	backupStoreName    = "badger.backup" // Badger's backup stream
	backupChainName    = "chain.rlp"     // embedded chain blocks 1..head, RLP
	backupSecretsDir   = "secrets/"      // the files of <data>/secrets
)

// blobSubdirs are the data-directory subdirectories of plain files that a
// backup copies whole (entries "<dir>/<relative path>"): the demo pictures
// and the kept signed files. They are walked after the store snapshot is
// taken, and a signed file is written before its record commits, so every
// file a record of the snapshot names is in the archive.
var blobSubdirs = []string{demoSubdir, blobsSubdir}

// backupManifest describes an archive.
type backupManifest struct {
	Format    string    `json:"format"`
	CreatedAt time.Time `json:"created_at"`
	// StoreVersion is the Badger version (read timestamp) of the snapshot.
	StoreVersion uint64 `json:"store_version"`
	// Chain is "embedded" when chain.rlp holds the embedded chain, else
	// "rpc" (the chain lives with its node).
	Chain     string `json:"chain"`
	ChainHead uint64 `json:"chain_head,omitempty"`
	Network   string `json:"network"`
}

// Backup writes a consistent backup of the running origin to w, as a tar
// archive: a manifest, the secrets kept in the data directory, a Badger
// snapshot taken at one read timestamp while requests continue, and, for
// the embedded chain, its blocks up to the head at the time of the copy.
// The chain is copied after the store, so every anchoring transaction the
// snapshot refers to is in the copy. The blob directories (the demo
// pictures) are copied whole; the mail outbox is not (mails are sent once
// and not needed again).
//
// The archive holds the JWT key and, unless it is given by environment,
// the master key: it is as sensitive as the data directory.
func (s *Server) Backup(ctx context.Context, w io.Writer) error {
	if s.badger == nil {
		return ErrBackupUnsupported
	}
	tmp, err := os.MkdirTemp(s.cfg.DataDir, "backup-")
	if err != nil {
		return fmt.Errorf("server: backup: %w", err)
	}
	defer os.RemoveAll(tmp)
	m := backupManifest{Format: BackupFormat, CreatedAt: s.cfg.Clock.Now().UTC(), Chain: "rpc", Network: s.chain.Network()}

	storeFile := filepath.Join(tmp, backupStoreName)
	if err := writeFile(storeFile, func(f io.Writer) error {
		v, err := s.badger.Backup(f)
		m.StoreVersion = v
		return err
	}); err != nil {
		return fmt.Errorf("server: backup: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	chainFile := ""
	if s.chain.Embedded() {
		chainFile = filepath.Join(tmp, backupChainName)
		m.Chain = "embedded"
		if err := writeFile(chainFile, func(f io.Writer) error {
			head, err := s.chain.ExportBlocks(f)
			m.ChainHead = head
			return err
		}); err != nil {
			return fmt.Errorf("server: backup: %w", err)
		}
	}

	tw := tar.NewWriter(w)
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := tarBytes(tw, backupManifestName, manifest, m.CreatedAt); err != nil {
		return err
	}
	secrets, err := os.ReadDir(filepath.Join(s.cfg.DataDir, secretsSubdir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("server: backup: %w", err)
	}
	for _, e := range secrets {
		if !e.Type().IsRegular() || strings.HasSuffix(e.Name(), ".tmp") {
			continue
		}
		if err := tarFile(tw, backupSecretsDir+e.Name(), filepath.Join(s.cfg.DataDir, secretsSubdir, e.Name()), m.CreatedAt); err != nil {
			return err
		}
	}
	for _, sub := range blobSubdirs {
		root := filepath.Join(s.cfg.DataDir, sub)
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && sub == blobsSubdir && d.Name() == "tmp" {
				return filepath.SkipDir // writes in progress, never referenced
			}
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			return tarFile(tw, sub+"/"+filepath.ToSlash(rel), p, m.CreatedAt)
		})
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("server: backup: %s: %w", sub, err)
		}
	}
	if err := tarFile(tw, backupStoreName, storeFile, m.CreatedAt); err != nil {
		return err
	}
	if chainFile != "" {
		if err := tarFile(tw, backupChainName, chainFile, m.CreatedAt); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("server: backup: %w", err)
	}
	s.log.Info("backup written", "store_version", m.StoreVersion, "chain", m.Chain, "chain_head", m.ChainHead)
	return nil
}

// handleBackup is GET /backup on the admin listener.
func (s *Server) handleBackup(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/x-tar")
	w.Header().Set("Content-Disposition", `attachment; filename="provenant-backup.tar"`)
	if s.badger == nil {
		http.Error(w, ErrBackupUnsupported.Error(), http.StatusNotImplemented)
		return
	}
	if err := s.Backup(r.Context(), w); err != nil {
		// Headers may be gone already; the client sees a truncated tar,
		// which Restore refuses (tar needs its end blocks).
		s.log.Error("backup failed", "err", err)
		http.Error(w, "backup failed", http.StatusInternalServerError)
	}
}

func writeFile(name string, fn func(io.Writer) error) error {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func tarBytes(tw *tar.Writer, name string, b []byte, at time.Time) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: int64(len(b)), ModTime: at, Typeflag: tar.TypeReg}); err != nil {
		return fmt.Errorf("server: backup: %w", err)
	}
	if _, err := tw.Write(b); err != nil {
		return fmt.Errorf("server: backup: %w", err)
	}
	return nil
}

func tarFile(tw *tar.Writer, name, file string, at time.Time) error {
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("server: backup: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("server: backup: %w", err)
	}
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: fi.Size(), ModTime: at, Typeflag: tar.TypeReg}); err != nil {
		return fmt.Errorf("server: backup: %w", err)
	}
	if _, err := io.Copy(tw, f); err != nil {
		return fmt.Errorf("server: backup: %w", err)
	}
	return nil
}

// isBlobEntry reports whether a (cleaned) archive entry name is a file
// under one of blobSubdirs; names that climb out ("..") or are absolute
// never are.
func isBlobEntry(name string) bool {
	if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
		return false
	}
	for _, sub := range blobSubdirs {
		if strings.HasPrefix(name, sub+"/") {
			return true
		}
	}
	return false
}

// ErrRestoreTarget is returned by Restore when the data directory is not
// empty: a restore never merges into existing state.
var ErrRestoreTarget = errors.New("server: restore needs an empty or missing data directory")

// Restore unpacks a Backup archive read from r into dataDir, which must be
// missing or empty, while no origin runs on it: the secrets files, the
// Badger snapshot, and the embedded chain (a fresh chain with the same
// genesis, then the archived blocks inserted and validated one by one).
// Starting an origin on dataDir afterwards resumes where the snapshot was
// taken: records, anchoring batches and the webhook queue included.
func Restore(ctx context.Context, r io.Reader, dataDir string, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if ents, err := os.ReadDir(dataDir); err == nil && len(ents) > 0 {
		return fmt.Errorf("%w: %s", ErrRestoreTarget, dataDir)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("server: restore: %w", err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("server: restore: %w", err)
	}
	tr := tar.NewReader(r)
	var m backupManifest
	seen := map[string]bool{}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("server: restore: read archive: %w", err)
		}
		name := path.Clean(h.Name)
		if name != backupManifestName && m.Format == "" {
			return fmt.Errorf("server: restore: archive does not start with %s", backupManifestName)
		}
		switch {
		case name == backupManifestName:
			if err := json.NewDecoder(io.LimitReader(tr, 1<<20)).Decode(&m); err != nil || m.Format != BackupFormat {
				return fmt.Errorf("server: restore: manifest is not %s (%v)", BackupFormat, err)
			}
		case strings.HasPrefix(name, backupSecretsDir) && path.Dir(name)+"/" == backupSecretsDir:
			dir := filepath.Join(dataDir, secretsSubdir)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return fmt.Errorf("server: restore: %w", err)
			}
			if err := writeFile(filepath.Join(dir, path.Base(name)), func(w io.Writer) error {
				_, err := io.Copy(w, io.LimitReader(tr, 1<<20))
				return err
			}); err != nil {
				return fmt.Errorf("server: restore: secrets: %w", err)
			}
		case isBlobEntry(name):
			dst := filepath.Join(dataDir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
				return fmt.Errorf("server: restore: %w", err)
			}
			if err := writeFile(dst, func(w io.Writer) error { _, err := io.Copy(w, tr); return err }); err != nil {
				return fmt.Errorf("server: restore: %s: %w", name, err)
			}
		case name == backupStoreName:
			st, err := store.Open(store.Config{Dir: filepath.Join(dataDir, dbSubdir), Logger: log.With("component", "badger")})
			if err != nil {
				return err
			}
			lerr := st.Load(tr)
			if err := errors.Join(lerr, st.Close()); err != nil {
				return fmt.Errorf("server: restore: %w", err)
			}
		case name == backupChainName:
			// The node key came with the secrets, which precede the
			// chain in the archive; an archive from before node keys has
			// none, and its chain is the legacy one.
			var nodeKey []byte
			if b, rerr := os.ReadFile(filepath.Join(dataDir, secretsSubdir, chainKeyFile)); rerr == nil {
				k, derr := hex.DecodeString(strings.TrimSpace(string(b)))
				if derr != nil || len(k) != ethchain.NodeKeySize {
					return fmt.Errorf("server: restore: secret file %s is malformed", chainKeyFile)
				}
				nodeKey = k
			}
			chain, err := ethchain.Open(ctx, ethchain.Config{DataDir: dataDir, NodeKey: nodeKey})
			if err != nil {
				return fmt.Errorf("server: restore: open chain: %w", err)
			}
			n, ierr := chain.ImportBlocks(tr)
			if ierr == nil {
				ierr = chain.Sync(ctx)
			}
			head, herr := chain.Head(ctx)
			if err := errors.Join(ierr, herr, chain.Close()); err != nil {
				return fmt.Errorf("server: restore: chain: %w", err)
			}
			if head != m.ChainHead {
				return fmt.Errorf("server: restore: chain head %d after import, archive has %d", head, m.ChainHead)
			}
			log.Info("restore: chain imported", "blocks", n, "head", head)
		default:
			return fmt.Errorf("server: restore: unexpected archive entry %q", h.Name)
		}
		seen[name] = true
	}
	if !seen[backupStoreName] || (m.Chain == "embedded" && !seen[backupChainName]) {
		return errors.New("server: restore: archive is incomplete")
	}
	log.Info("restore complete", "data_dir", dataDir, "store_version", m.StoreVersion, "chain", m.Chain)
	return nil
}
