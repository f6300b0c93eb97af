package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCorpusFilesSpread pins how a -limit subset is drawn: spread evenly
// over the sorted list, not a prefix, and the whole list when limit is 0
// or not smaller. The held-out sets are defined by these subsets, so a
// change here would silently move photos between tuning and held-out.
func TestCorpusFilesSpread(t *testing.T) {
	dir := t.TempDir()
	var all []string
	for _, n := range []string{"a.jpg", "b.png", "c.webp", "d.gif", "e.jpeg", "f.JPG", "g.jpg", "h.jpg", "i.jpg", "j.jpg", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if n != "notes.txt" {
			all = append(all, filepath.Join(dir, n))
		}
	}
	slices.Sort(all)
	for _, tc := range []struct {
		limit int
		want  []int // indices into the sorted list
	}{
		{0, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{10, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{20, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{4, []int{0, 2, 5, 7}},
		{3, []int{0, 3, 6}},
		{1, []int{0}},
	} {
		got, err := corpusFiles(dir, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, i := range tc.want {
			want = append(want, all[i])
		}
		if !slices.Equal(got, want) {
			t.Errorf("limit %d: got %v, want %v", tc.limit, got, want)
		}
	}
}

// TestHeldOutUnchanged pins the watermark's held-out photos of the
// 94-photo development set by index: every fourth of the sorted list less
// those the tuning runs' subsets picked.
func TestHeldOutUnchanged(t *testing.T) {
	var files []string
	for i := range 94 {
		files = append(files, fmt.Sprintf("%02d.jpg", i))
	}
	var got []int
	for _, f := range heldOut(files) {
		i := slices.Index(files, f)
		got = append(got, i)
	}
	if want := []int{51, 55, 59, 63, 71, 75, 79, 83, 91}; !slices.Equal(got, want) {
		t.Errorf("held-out indices %v, want %v", got, want)
	}
}

// TestIntegritySubsetsPartition pins the integrity bench's three subsets
// of a 94-photo set: the held-out photos are exactly those outside the
// tuning subset, and the unseen ones exactly the held-out photos outside
// the studied ones, each kept in the sorted list's order.
func TestIntegritySubsetsPartition(t *testing.T) {
	dir := t.TempDir()
	for i := range 94 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%02d.jpg", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	all, err := corpusFiles(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	tuned, _ := corpusFiles(dir, tunedOn)
	held, _ := heldOutFiles(dir, 0)
	studied, _ := heldOutFiles(dir, studiedHeldOut)
	unseen, err := unseenFiles(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(tuned) != tunedOn || len(held) != len(all)-tunedOn || len(studied) != studiedHeldOut || len(unseen) != len(held)-studiedHeldOut {
		t.Fatalf("sizes: tuned %d, held out %d, studied %d, unseen %d of %d", len(tuned), len(held), len(studied), len(unseen), len(all))
	}
	for _, f := range all {
		if slices.Contains(tuned, f) == slices.Contains(held, f) {
			t.Errorf("%s: in the tuning subset %v, held out %v", f, slices.Contains(tuned, f), slices.Contains(held, f))
		}
		if slices.Contains(held, f) && slices.Contains(studied, f) == slices.Contains(unseen, f) {
			t.Errorf("%s: studied %v, unseen %v", f, slices.Contains(studied, f), slices.Contains(unseen, f))
		}
	}
	if !slices.IsSorted(held) || !slices.IsSorted(unseen) {
		t.Error("a subset left the sorted order")
	}
}
