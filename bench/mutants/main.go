// Command mutants is the project's mutation test: it applies each named
// one-line mutation of a security check (mutants.txt) and runs the tests of
// the package that holds the check. A mutant the tests reject is killed;
// one they accept survived, which means no test of that package notices
// the check being broken. Every mutant must be killed unless it is listed
// as equivalent, with the reason (docs/testing.md, "Mutation testing").
//
// The tree is never modified: the mutated file is written to a temporary
// directory and handed to `go test -overlay`, so an interrupted run leaves
// nothing behind and other work can go on in the same checkout.
//
//	go run ./bench/mutants                  # every mutant (make mutants)
//	go run ./bench/mutants -only 'csrf|scope'
//	go run ./bench/mutants -list
//
// It prints a Markdown table (mutant, package, what it breaks, result,
// seconds) and exits 1 if a mutant not marked equivalent survived or could
// not be applied.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// mutant is one named one-line mutation.
type mutant struct {
	// Name identifies the mutant: area/check.
	Name string
	// File is the repository-relative file to mutate.
	File string
	// From is replaced by To; From must occur exactly once in File, so a
	// mutant whose line changed fails loudly instead of testing nothing.
	From, To string
	// Breaks says what the mutation breaks, for the report.
	Breaks string
	// Run, if set, restricts the package's tests (go test -run) for
	// packages whose full run is slow; the tests it names must be the
	// ones that guard the check.
	Run string
	// Equivalent, if set, says why no test can tell the mutant from the
	// original: a survivor with a reason is accepted.
	Equivalent string
}

// Pkg is the package directory whose tests judge the mutant.
func (m mutant) Pkg() string { return "./" + filepath.ToSlash(filepath.Dir(m.File)) }

type outcome string

const (
	killed   outcome = "killed"
	survived outcome = "survived"
	broken   outcome = "not applied"
)

func main() {
	only := flag.String("only", "", "run only the mutants whose name matches this regular expression")
	list := flag.Bool("list", false, "list the mutants and exit")
	check := flag.Bool("check", false, "only check that every mutant still applies (its line is in its file, once) and exit")
	timeout := flag.Duration("timeout", 10*time.Minute, "time limit of one package test run")
	baseline := flag.Bool("baseline", true, "first check that each package's tests pass unmutated")
	flag.Parse()
	if err := run(*only, *list, *check, *timeout, *baseline); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(1)
	}
}

func run(only string, list, check bool, timeout time.Duration, baseline bool) error {
	re, err := regexp.Compile(only)
	if err != nil {
		return fmt.Errorf("-only: %w", err)
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	mutants, err := parseTable(table)
	if err != nil {
		return err
	}
	var todo []mutant
	for _, m := range mutants {
		if re.MatchString(m.Name) {
			todo = append(todo, m)
		}
	}
	if list {
		for _, m := range todo {
			fmt.Printf("%-40s %-36s %s\n", m.Name, m.Pkg(), m.Breaks)
		}
		return nil
	}
	if check {
		var errs []error
		names := map[string]bool{}
		for _, m := range todo {
			if names[m.Name] {
				errs = append(errs, fmt.Errorf("%s: name used twice", m.Name))
			}
			names[m.Name] = true
			src, err := os.ReadFile(filepath.Join(root, m.File))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if n := bytes.Count(src, []byte(m.From)); n != 1 || m.From == m.To {
				errs = append(errs, fmt.Errorf("%s: %q occurs %d times in %s, want exactly once", m.Name, m.From, n, m.File))
			}
		}
		if len(errs) == 0 {
			fmt.Printf("%d mutants apply\n", len(todo))
		}
		return errors.Join(errs...)
	}
	tmp, err := os.MkdirTemp("", "mutants-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	if baseline {
		seen := map[string]bool{}
		for _, m := range todo {
			key := m.Pkg() + " " + m.Run
			if seen[key] {
				continue
			}
			seen[key] = true
			fmt.Fprintf(os.Stderr, "baseline %s ...\n", key)
			ok, out, err := goTest(root, "", m, timeout)
			if err == nil && !ok {
				// One retry: a test that failed once on a busy machine
				// should not void the run; one that fails twice is broken.
				ok, out, err = goTest(root, "", m, timeout)
			}
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("the tests of %s fail without any mutation:\n%s", m.Pkg(), out)
			}
		}
	}

	fmt.Println("| mutant | package | what it breaks | result | s |")
	fmt.Println("|---|---|---|---|---|")
	bad := 0
	for i, m := range todo {
		fmt.Fprintf(os.Stderr, "[%d/%d] %s ...\n", i+1, len(todo), m.Name)
		start := time.Now()
		res, detail := apply(root, tmp, i, m, timeout)
		secs := time.Since(start).Seconds()
		shown := string(res)
		switch {
		case res == survived && m.Equivalent != "":
			shown = "survived (equivalent: " + m.Equivalent + ")"
		case res != killed:
			bad++
			if detail != "" {
				fmt.Fprintf(os.Stderr, "%s %s:\n%s\n", m.Name, res, detail)
			}
		}
		fmt.Printf("| `%s` | `%s` | %s | %s | %.0f |\n", m.Name, strings.TrimPrefix(m.Pkg(), "./"), m.Breaks, shown, secs)
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d mutants survived or could not be applied", bad, len(todo))
	}
	return nil
}

// apply writes the mutated file under tmp, runs the package's tests with
// an overlay pointing at it, and classifies the result.
func apply(root, tmp string, i int, m mutant, timeout time.Duration) (outcome, string) {
	src, err := os.ReadFile(filepath.Join(root, m.File))
	if err != nil {
		return broken, err.Error()
	}
	if n := bytes.Count(src, []byte(m.From)); n != 1 {
		return broken, fmt.Sprintf("%q occurs %d times in %s, want exactly once", m.From, n, m.File)
	}
	mutated := bytes.Replace(src, []byte(m.From), []byte(m.To), 1)
	dir := filepath.Join(tmp, fmt.Sprint(i))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return broken, err.Error()
	}
	file := filepath.Join(dir, filepath.Base(m.File))
	if err := os.WriteFile(file, mutated, 0o644); err != nil {
		return broken, err.Error()
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(root, m.File): file}})
	if err != nil {
		return broken, err.Error()
	}
	ov := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ov, overlay, 0o644); err != nil {
		return broken, err.Error()
	}
	ok, out, err := goTest(root, ov, m, timeout)
	switch {
	case err != nil:
		return broken, err.Error()
	case ok:
		return survived, ""
	case strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]"):
		return broken, "the mutant does not compile:\n" + out
	}
	return killed, ""
}

// goTest runs the package's tests, with the overlay if set, and reports
// whether they passed.
func goTest(root, overlay string, m mutant, timeout time.Duration) (bool, string, error) {
	// -failfast: a mutant is killed by the first failing test.
	args := []string{"test", "-count=1", "-failfast", "-timeout", timeout.String()}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	if m.Run != "" {
		args = append(args, "-run", m.Run)
	}
	args = append(args, m.Pkg())
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, string(out), nil
	case errors.As(err, &exit):
		return false, string(out), nil
	}
	return false, string(out), fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
}

// moduleRoot is the directory of the main module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside a Go module")
	}
	return filepath.Dir(mod), nil
}
