package phash_test

import (
	"fmt"
	"os"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
)

func Example() {
	b, err := os.ReadFile("../testdata/images/photo.jpg")
	if err != nil {
		panic(err)
	}
	img, err := imagex.Decode(b, limits.Default())
	if err != nil {
		panic(err)
	}
	luma := imagex.ToLuma(img.Image) // shared with the watermark detector
	h, err := phash.Compute(luma)
	if err != nil {
		panic(err)
	}
	stored, _ := phash.Parse(h.String()) // as kept in a record
	fmt.Println(h.Hex64(), phash.Distance256(h.P256, stored.P256), phash.Near(h, stored))
	// Output: 8468a38f55f75855 0 true
}
