package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/provenant/provenant/client"
)

// imageExts are the pictures a folder contributes to sign and register
// (single files named on the command line are sent whatever their name).
var imageExts = map[string]bool{".jpg": true, ".jpeg": true, ".png": true, ".gif": true, ".webp": true}

// videoExts are the videos a folder contributes to sign: the origin
// watermarks and signs MP4, MOV and WebM (register signs on this machine,
// which reads pictures only, so it leaves them out).
var videoExts = map[string]bool{".mp4": true, ".m4v": true, ".mov": true, ".webm": true}

// signExts are the files a folder contributes to sign.
var signExts = union(imageExts, videoExts)

// signedExts are the extensions a signed output may have (the origin
// answers pictures as JPEG or PNG, videos in their own container).
var signedExts = []string{".jpg", ".png", ".mp4", ".mov", ".webm"}

func union(a, b map[string]bool) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

// signJob is one file to sign and where its output goes.
type signJob struct {
	src string
	// outDir is the directory of the output; stem its name without
	// extension (".signed" and the output's extension are added).
	outDir, stem string
}

// signResult is one line of sign's report.
type signResult struct {
	File     string        `json:"file"`
	Output   string        `json:"output,omitempty"`
	Status   string        `json:"status"` // signed, skipped, failed
	RecordID string        `json:"record_id,omitempty"`
	SHA256   string        `json:"sha256,omitempty"`
	Error    *client.Error `json:"error,omitempty"`
	Message  string        `json:"message,omitempty"`
	err      error
}

func (a *app) signCommand() *cobra.Command {
	var keyID, parent string
	var bf batchFlags
	cmd := &cobra.Command{
		Use:   "sign FILE...|DIR...",
		Short: "Sign files: each NAME.EXT gets a watermarked, signed NAME.signed.EXT",
		Long: `sign uploads each file to be watermarked and signed, and writes the signed
file next to it as NAME.signed.jpg (or .png: PNG, GIF and WebP come back as
PNG; a video keeps its container, NAME.signed.mp4, .mov or .webm), or into
-o DIR. A DIR is walked recursively for .jpg .jpeg .png .gif .webp pictures
and .mp4 .m4v .mov .webm videos (files already named *.signed.* are left
out); with -o the folder layout is kept under the output directory.

Files are signed in parallel (--parallel); a progress bar shows on a
terminal. A file whose output already exists is skipped unless --force.
The signed file is checked against the record's SHA-256 before it is
renamed into place, so a partial file never carries the final name.

The signing key is --key, else PROVENANT_SIGNING_KEY, else the default key
stored by 'provenant keys signing create'.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := bf.check("sign", args); err != nil {
				return err
			}
			if keyID == "" {
				keyID = a.io.getenv("PROVENANT_SIGNING_KEY")
			}
			if keyID == "" {
				keyID = a.cfg.SigningKeyID
			}
			if keyID == "" {
				return usagef("no signing key: pass --key ID (see 'provenant keys signing list')")
			}
			return a.signFiles(cmd, args, signExts, bf, "signing ", func(ctx context.Context, c *client.Client, j signJob) signResult {
				return a.signOne(ctx, c, j, keyID, parent, bf.force)
			})
		},
	}
	bf.register(cmd)
	cmd.Flags().StringVar(&keyID, "key", "", "signing key id (env PROVENANT_SIGNING_KEY; default: the stored default key)")
	cmd.Flags().StringVar(&parent, "derivative-of", "", "declare the files derivatives of this record id")
	return cmd
}

// batchFlags are the flags sign and register share: where the signed
// files go, how many are signed at once, and whether a file whose output
// exists is signed again.
type batchFlags struct {
	outDir   string
	parallel int
	force    bool
}

func (f *batchFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.outDir, "output", "o", "", "write signed files into this directory (created if needed)")
	cmd.Flags().IntVarP(&f.parallel, "parallel", "p", 4, "files signed at once")
	cmd.Flags().BoolVar(&f.force, "force", false, "sign again files whose output already exists")
}

// check refuses, as usage errors, a command without files and a
// --parallel below 1.
func (f *batchFlags) check(command string, args []string) error {
	if len(args) == 0 {
		return usagef("%s needs at least one FILE or DIR", command)
	}
	if f.parallel < 1 {
		return usagef("--parallel must be at least 1")
	}
	return nil
}

// signFiles is what sign and register share: it finds the files under
// args, then runs one on each of them, bf.parallel at a time, with a
// client that carries an API key or the session, and reports the results.
func (a *app) signFiles(cmd *cobra.Command, args []string, exts map[string]bool, bf batchFlags, label string, one func(context.Context, *client.Client, signJob) signResult) error {
	jobs, err := collectSignJobs(args, exts, bf.outDir)
	if err != nil {
		return err
	}
	if len(jobs) == 0 {
		return usagef("no supported files found in %s", strings.Join(args, " "))
	}
	c, err := a.client(credEither)
	if err != nil {
		return err
	}
	ctx, cancel := a.ctx(cmd)
	defer cancel()
	results := a.runJobs(ctx, label, jobs, bf.parallel, func(j signJob) signResult {
		return one(ctx, c, j)
	})
	return a.reportSign(results)
}

// collectSignJobs expands the arguments into files, in argument order then
// walk order; a folder contributes the files whose extension is in exts.
func collectSignJobs(args []string, exts map[string]bool, outDir string) ([]signJob, error) {
	var jobs []signJob
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			dir := filepath.Dir(arg)
			if outDir != "" {
				dir = outDir
			}
			jobs = append(jobs, signJob{src: arg, outDir: dir, stem: stemOf(arg)})
			continue
		}
		err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			name := d.Name()
			if !exts[strings.ToLower(filepath.Ext(name))] || strings.Contains(name, ".signed.") || strings.HasPrefix(name, ".") {
				return nil
			}
			dir := filepath.Dir(p)
			if outDir != "" {
				rel, err := filepath.Rel(arg, dir)
				if err != nil {
					return err
				}
				dir = filepath.Join(outDir, rel)
			}
			jobs = append(jobs, signJob{src: p, outDir: dir, stem: stemOf(p)})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return jobs, nil
}

func stemOf(p string) string {
	b := filepath.Base(p)
	return strings.TrimSuffix(b, filepath.Ext(b)) + ".signed"
}

// existingOutput returns the output of j if one exists already.
func existingOutput(j signJob) string {
	for _, ext := range signedExts {
		p := filepath.Join(j.outDir, j.stem+ext)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// runJobs runs do on every job, parallel at a time, with a progress bar
// on a terminal for more than one file; results are in job order.
func (a *app) runJobs(ctx context.Context, verb string, jobs []signJob, parallel int, do func(signJob) signResult) []signResult {
	results := make([]signResult, len(jobs))
	var bar *mpb.Bar
	var progress *mpb.Progress
	if len(jobs) > 1 && !a.asJSON && isTerminal(a.io.err) {
		progress = mpb.NewWithContext(ctx, mpb.WithOutput(a.io.err), mpb.WithWidth(40))
		bar = progress.AddBar(int64(len(jobs)),
			mpb.PrependDecorators(decor.Name(verb), decor.CountersNoUnit("%d/%d")),
			// AverageETA: parallel workers move the bar with Increment; an EWMA
			// ETA needs each item's duration and stayed at "0s" without it.
			mpb.AppendDecorators(decor.Percentage(decor.WCSyncSpace), decor.Name(" "), decor.AverageETA(decor.ET_STYLE_GO)),
		)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(parallel, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = do(jobs[i])
				if bar != nil {
					bar.Increment()
				}
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	if progress != nil {
		progress.Wait()
	}
	return results
}

func (res signResult) fail(err error) signResult {
	res.Status, res.err, res.Message = "failed", err, err.Error()
	var pe *client.Error
	if errors.As(err, &pe) {
		res.Error = pe
	}
	return res
}

func (a *app) signOne(ctx context.Context, c *client.Client, j signJob, keyID, parent string, force bool) signResult {
	res := signResult{File: j.src}
	fail := res.fail
	if !force {
		if p := existingOutput(j); p != "" {
			res.Status, res.Output = "skipped", p
			return res
		}
	}
	up, err := client.FileUpload(j.src)
	if err != nil {
		return fail(err)
	}
	if err := os.MkdirAll(j.outDir, 0o755); err != nil {
		return fail(err)
	}
	tmp, err := os.CreateTemp(j.outDir, ".provenant-sign-*")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(tmp.Name())
	sf, err := c.SignFile(ctx, client.SignRequest{File: up, SigningKeyID: keyID, DerivativeOf: parent}, tmp)
	if err != nil && sf != nil && sf.RecordID != "" && ctx.Err() == nil {
		// The record exists but its file did not arrive whole: the origin
		// keeps every signed file, so fetch it again.
		if err = restart(tmp); err == nil {
			sf, err = c.DownloadFile(ctx, sf.RecordID, tmp)
		}
	}
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fail(err)
	}
	out := filepath.Join(j.outDir, j.stem+sf.Ext())
	// CreateTemp made it private; a signed file is meant to be shared.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return fail(err)
	}
	res.Status, res.Output, res.RecordID, res.SHA256 = "signed", out, sf.RecordID, sf.SHA256
	return res
}

// restart empties f for a new attempt.
func restart(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.Seek(0, io.SeekStart)
	return err
}

// reportSign prints the results and returns the error of the first
// failure (its exit code is the command's).
func (a *app) reportSign(results []signResult) error {
	var first error
	signed, skipped, failed := 0, 0, 0
	for _, r := range results {
		switch r.Status {
		case "signed", "registered":
			signed++
		case "skipped":
			skipped++
		default:
			failed++
			if first == nil {
				first = fmt.Errorf("%s: %w", r.File, r.err)
			}
		}
	}
	if a.asJSON {
		if err := a.printJSON(map[string]any{"items": results, "signed": signed, "skipped": skipped, "failed": failed}); err != nil {
			return err
		}
		if first != nil {
			return silent{first}
		}
		return nil
	}
	for _, r := range results {
		switch r.Status {
		case "signed", "registered":
			a.printf("%-8s %s -> %s  record %s\n", r.Status, r.File, r.Output, r.RecordID)
		case "skipped":
			a.printf("skipped  %s (%s exists; --force signs again)\n", r.File, r.Output)
		default:
			a.printf("FAILED   %s: %s\n", r.File, r.Message)
		}
	}
	if len(results) > 1 {
		a.printf("%d signed, %d skipped, %d failed\n", signed, skipped, failed)
	}
	if first != nil {
		return silent{first}
	}
	return nil
}

// silent is an error already reported on stdout: it sets the exit code and
// is not printed again.
type silent struct{ err error }

func (s silent) Error() string { return s.err.Error() }
func (s silent) Unwrap() error { return s.err }
