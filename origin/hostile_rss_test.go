package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/provenant/provenant/internal/formdata"
	"github.com/provenant/provenant/origin/internal/video/videotest"
	"github.com/provenant/provenant/origin/origintest/hostile"
	"github.com/provenant/provenant/origin/origintest/originproc"
)

// hostileAddressSpace is the origin's RLIMIT_AS in the hostile test: an
// idle origin has about 2.1 GiB of address space mapped (VmPeak: the Go
// runtime's reservations, the embedded chain, the verifier's compiled
// WebAssembly, Badger's memory-mapped tables, mostly never touched),
// plus the decode budget (1 GiB) and some room. Its ffmpeg children
// lower it to their own (512 MiB to 1 GiB).
const hostileAddressSpace = 4 << 30

// residentBound is the documented bound on the origin's resident memory:
// the decode budget plus the soft limit's headroom.
const residentBound = 1<<30 + memoryHeadroom

// treeSampler polls, every 10 ms, the resident memory of a process and of
// its children (ffmpeg, ffprobe) and keeps the largest sum and the
// largest child peak.
type treeSampler struct {
	pid  int
	stop chan struct{}
	done chan struct{}
	// treePeak is the largest origin + children VmRSS sampled; childPeak
	// the largest child VmHWM.
	treePeak, childPeak int64
}

func statusField(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == field+":" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n << 10
		}
	}
	return 0
}

// childrenOf lists pid's children, from every thread (Go starts a child
// from whichever thread runs the goroutine).
func childrenOf(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, tk := range tasks {
		b, err := os.ReadFile(tk)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

func sampleTree(pid int) *treeSampler {
	s := &treeSampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			sum := statusField(pid, "VmRSS")
			for _, c := range childrenOf(pid) {
				sum += statusField(c, "VmRSS")
				s.childPeak = max(s.childPeak, statusField(c, "VmHWM"))
			}
			s.treePeak = max(s.treePeak, sum)
			select {
			case <-s.stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return s
}

func (s *treeSampler) end() { close(s.stop); <-s.done }

// hostileUpload posts data as the "file" part to base+path and returns
// the status and problem code.
func hostileUpload(base, path, token, name string, data []byte) (int, string, error) {
	body, ct := formdata.File("file", name, data, nil)
	req, err := http.NewRequest("POST", base+path, bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", ct)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var p struct {
		Code string `json:"code"`
	}
	if resp.StatusCode >= 400 {
		_ = json.Unmarshal(b, &p)
	}
	return resp.StatusCode, p.Code, nil
}

// TestHostileInputsUnderProcessCap runs the real origin binary as a child
// process under an address-space limit (RLIMIT_AS, hostileAddressSpace)
// and sends it the inputs that took the service down: a JPEG padded with
// 8.4 million empty COM segments (verify), an 8-bit 24000×256 PNG strip
// and a C2PA store near 16 MiB (sign), and with ffmpeg an MP4 and a
// Matroska clip whose frames are 10 hours apart and a stream switching to
// 4096×4096 frames ffprobe does not see (verify). Each is answered with
// its stable status; the origin is alive afterwards; its peak resident
// memory (VmHWM) stays under the decode budget plus headroom and each
// ffmpeg child's under 256 MiB. The figures are logged. It runs in
// make test as this sequential variant (seconds); PROVENANT_HOSTILE_RSS=1
// adds the concurrent rounds of the original report (eight padded JPEGs
// at once, four resolution switches at once).
func TestHostileInputsUnderProcessCap(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the origin as a child process")
	}
	o := originproc.Start(t, originproc.Options{SelfExec: true, AddressSpace: hostileAddressSpace,
		Args: []string{"--decode-memory", "1GiB"}})
	base, pid := o.URL, o.Pid
	if lim, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid)); err != nil || !strings.Contains(string(lim), strconv.Itoa(hostileAddressSpace)) {
		t.Fatalf("the origin runs without its address-space limit:\n%s", lim)
	}
	t.Logf("idle origin: VmRSS %d MiB, VmPeak %d MiB (address space), limit %d MiB",
		statusField(pid, "VmRSS")>>20, statusField(pid, "VmPeak")>>20, hostileAddressSpace>>20)
	token, keyID := videoSigner(t, base)
	signPath := "/api/v1/sign?signing_key_id=" + keyID

	type input struct {
		name, path, token, file string
		data                    []byte
		status                  int
		code                    string
	}
	inputs := []input{
		{"padded JPEG (32 MiB of COM segments)", "/api/v1/verify", "", "padded.jpg", hostile.PaddedJPEG(t, (32<<20-64<<10)/4), 200, ""},
		{"24000×256 PNG strip", signPath, token, "strip.png", hostile.StripPNG(t, 24000, 256), 422, "aspect_ratio_out_of_limits"},
		{"C2PA store near 16 MiB", signPath, token, "big.jpg", hostile.BigStoreJPEG(t), 422, "c2pa_store_too_large"},
	}
	var switchClip []byte
	if _, err := exec.LookPath("ffmpeg"); err == nil {
		dir := t.TempDir()
		read := func(p string) []byte {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		sw, _ := videotest.SwitchClip(t, dir, "switch.mp4", 4096)
		switchClip = read(sw)
		inputs = append(inputs,
			input{"MP4 with 10-hour frame gaps", "/api/v1/verify", "", "gap.mp4", read(videotest.GapClip(t, dir, "gap.mp4")), 422, "video_out_of_limits"},
			input{"Matroska with 10-hour frame gaps", "/api/v1/verify", "", "gap.mkv", read(videotest.GapClip(t, dir, "gap.mkv")), 200, ""},
			input{"640×360 switching to 4096×4096", "/api/v1/verify", "", "switch.mp4", switchClip, 200, ""})
	} else {
		t.Log("no ffmpeg: the video inputs are left out")
	}
	for _, in := range inputs {
		s := sampleTree(pid)
		start := time.Now()
		status, code, err := hostileUpload(base, in.path, in.token, in.file, in.data)
		s.end()
		t.Logf("%s (%d KiB): %d %s in %v; origin+children peak %d MiB, ffmpeg child peak %d MiB, origin VmHWM so far %d MiB",
			in.name, len(in.data)>>10, status, code, time.Since(start).Round(time.Millisecond), s.treePeak>>20, s.childPeak>>20, statusField(pid, "VmHWM")>>20)
		if err != nil {
			t.Fatalf("%s: %v (did the origin die?)", in.name, err)
		}
		if status != in.status || code != in.code {
			t.Errorf("%s: %d %q, want %d %q", in.name, status, code, in.status, in.code)
		}
		if s.childPeak > 256<<20 {
			t.Errorf("%s: an ffmpeg child peaked at %d MiB resident, want under 256 MiB", in.name, s.childPeak>>20)
		}
	}

	if os.Getenv("PROVENANT_HOSTILE_RSS") != "" {
		concurrent := func(name, file string, data []byte, n int) {
			s := sampleTree(pid)
			start := time.Now()
			var wg sync.WaitGroup
			var mu sync.Mutex
			answers := map[string]int{}
			for range n {
				wg.Go(func() {
					status, code, err := hostileUpload(base, "/api/v1/verify", "", file, data)
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						t.Errorf("%s: %v", name, err)
						return
					}
					answers[fmt.Sprintf("%d %s", status, code)]++
				})
			}
			wg.Wait()
			s.end()
			t.Logf("%d × %s at once: %v in %v; origin+children peak %d MiB, ffmpeg child peak %d MiB, origin VmHWM so far %d MiB",
				n, name, answers, time.Since(start).Round(time.Millisecond), s.treePeak>>20, s.childPeak>>20, statusField(pid, "VmHWM")>>20)
			for a := range answers {
				if !strings.HasPrefix(a, "200") && !strings.HasPrefix(a, "503") {
					t.Errorf("%s: answer %s, want 200 or 503 (capacity)", name, a)
				}
			}
		}
		concurrent("padded JPEG", "padded.jpg", inputs[0].data, 8)
		if switchClip != nil {
			concurrent("resolution switch", "switch.mp4", switchClip, 4)
		}
	}

	hwm := statusField(pid, "VmHWM")
	t.Logf("origin peak resident (VmHWM) over the whole run: %d MiB (bound %d MiB); VmPeak %d MiB of %d MiB address space",
		hwm>>20, residentBound>>20, statusField(pid, "VmPeak")>>20, hostileAddressSpace>>20)
	if hwm == 0 {
		t.Fatal("the origin is gone")
	}
	if hwm > residentBound {
		t.Errorf("origin peak resident %d MiB, over the budget plus headroom %d MiB", hwm>>20, residentBound>>20)
	}
	if resp, err := http.Get(base + "/health"); err != nil || resp.StatusCode != 200 {
		t.Errorf("origin /health after the hostile inputs: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}
