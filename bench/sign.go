package main

import (
	"flag"
	"fmt"
	"github.com/provenant/provenant/internal/formdata"
	"net/http"
	"net/url"
	"os"
	"runtime"
)

func signCommand(fs *flag.FlagSet) func() error {
	var lf loadFlags
	lf.register(fs)
	apiKey := fs.String("api-key", os.Getenv("PROVENANT_API_KEY"), "API key with scope sign (env PROVENANT_API_KEY)")
	signingKey := fs.String("signing-key", "", "signing key id")
	returnFile := fs.Bool("return-file", false, "ask for the watermarked file instead of JSON")
	floor := fs.Duration("floor", 0, "total time spent measuring the decode-only ceiling of the same images, interleaved with the load (0 to skip)")
	rounds := fs.Int("rounds", 1, "interleaved rounds of decode-only ceiling and sign load (with -floor)")
	serverPID := fs.Int("server-pid", 0, "if set, report the origin's CPU per sign from /proc next to the CPU per decode")
	return func() error {
		if *apiKey == "" || *signingKey == "" {
			return fmt.Errorf("-api-key and -signing-key are required")
		}
		imgs, err := lf.loadImages()
		if err != nil {
			return err
		}
		reqs := make([]request, len(imgs))
		fields := map[string]string{"return_file": fmt.Sprint(*returnFile)}
		for i, b := range imgs {
			body, ct := formdata.File("file", "image", b, fields)
			reqs[i] = request{body: body, contentType: ct}
		}
		fmt.Printf("sign: %d images; c=%d d=%v rate=%v/s GOMAXPROCS=%d\n", len(imgs), lf.c, lf.d, lf.rate, runtime.GOMAXPROCS(0))
		u := lf.url + "/api/v1/sign?signing_key_id=" + url.QueryEscape(*signingKey)
		return interleaved(u, map[string]string{"Authorization": "Bearer " + *apiKey}, http.StatusCreated, "sign", imgs, reqs, lf, *floor, *rounds, *serverPID)
	}
}
