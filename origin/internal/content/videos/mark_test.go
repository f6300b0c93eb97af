package videos

import (
	"testing"

	"github.com/provenant/provenant/shared/localsig"
)

// TestUnmarkedDetail: a block's detail is lowered to the unmarked
// picture's, never raised, and a grid of another plane changes nothing.
func TestUnmarkedDetail(t *testing.T) {
	grid := func(details ...uint8) *localsig.Grid {
		g := &localsig.Grid{Width: 64, Height: 32, Cols: len(details), Rows: 1}
		for _, d := range details {
			g.Blocks = append(g.Blocks, localsig.Block{Detail: d})
		}
		return g
	}
	tests := []struct {
		name           string
		marked, source *localsig.Grid
		want           []uint8
	}{
		{"lowered where the source is flatter", grid(9, 4), grid(2, 6), []uint8{2, 4}},
		{"never raised", grid(1, 1), grid(5, 5), []uint8{1, 1}},
		{"another plane leaves it", grid(9, 4), func() *localsig.Grid { g := grid(2, 2); g.Width = 66; return g }(), []uint8{9, 4}},
		{"another block count leaves it", grid(9, 4), grid(2, 2, 2), []uint8{9, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			unmarkedDetail(tt.marked, tt.source)
			for i, b := range tt.marked.Blocks {
				if b.Detail != tt.want[i] {
					t.Errorf("block %d detail %v, want %v", i, b.Detail, tt.want[i])
				}
			}
		})
	}
}
