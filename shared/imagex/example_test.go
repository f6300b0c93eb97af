package imagex_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
)

func ExampleDecode() {
	b, _ := os.ReadFile("../testdata/bombs/png-100000x100000.png")
	_, err := imagex.Decode(b, limits.Default())
	var dim *imagex.DimensionError
	fmt.Println(errors.Is(err, imagex.ErrTooManyPixels), errors.As(err, &dim) && dim.Width == 100000)

	b, _ = os.ReadFile("../testdata/images/photo.jpg")
	img, err := imagex.Decode(b, limits.Default())
	fmt.Println(img.Format, img.Width, img.Height, err)
	// Output:
	// true true
	// jpeg 480 300 <nil>
}
