package watermark

import "sort"

// The sorts here go through sort.Sort and sort.Stable rather than
// sort.Slice, sort.SliceStable and sort.Float64s. All are the same
// pattern-defeating quicksort and insertion-merge sort, generated from one
// template, so each orders a slice exactly as before, ties included; but
// sort's Interface variant is in the WebAssembly verifier module anyway
// (compress/flate sorts with it), while each of the others links another
// copy of the algorithm (docs/widget.md, "Size").

// sortBy sorts n elements with less and swap, as sort.Slice would with
// less.
func sortBy(n int, less func(i, j int) bool, swap func(i, j int)) {
	sort.Sort(lessSwap{n, less, swap})
}

// stableBy is sortBy keeping equal elements in their order, as
// sort.SliceStable would.
func stableBy(n int, less func(i, j int) bool, swap func(i, j int)) {
	sort.Stable(lessSwap{n, less, swap})
}

// sortFloats sorts v ascending, NaNs first, as sort.Float64s would.
func sortFloats(v []float64) { sort.Sort(sort.Float64Slice(v)) }

type lessSwap struct {
	n    int
	less func(i, j int) bool
	swap func(i, j int)
}

func (s lessSwap) Len() int           { return s.n }
func (s lessSwap) Less(i, j int) bool { return s.less(i, j) }
func (s lessSwap) Swap(i, j int)      { s.swap(i, j) }
