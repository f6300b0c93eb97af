package facts_test

import (
	"fmt"
	"os"
	"time"

	"github.com/provenant/provenant/shared/facts"
	"github.com/provenant/provenant/shared/limits"
)

// Every host computes a file's facts the same way; their JSON form is what
// the browser posts to POST /api/v1/verify/lookup.
func ExampleAnalyze() {
	file, err := os.ReadFile("../testdata/images/photo.jpg")
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := facts.Analyze(file, limits.Default(), time.Now())
	if err != nil {
		fmt.Println(err)
		return
	}
	w := f.Wire()
	fmt.Println(w.Format, w.Width, w.Height, len(w.SHA256), len(w.PerceptualHash), w.Watermark.Found)
	// Output: jpeg 480 300 64 80 false
}
