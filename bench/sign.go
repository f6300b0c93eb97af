package main

import (
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"runtime"
)

func runSign(args []string) error {
	fs := flag.NewFlagSet("sign", flag.ExitOnError)
	var lf loadFlags
	lf.register(fs)
	apiKey := fs.String("api-key", os.Getenv("PROVENANT_API_KEY"), "API key with scope sign (env PROVENANT_API_KEY)")
	signingKey := fs.String("signing-key", "", "signing key id")
	returnFile := fs.Bool("return-file", false, "ask for the watermarked file instead of JSON")
	_ = fs.Parse(args)
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
		body, ct := multipartBody(b, fields)
		reqs[i] = request{body: body, contentType: ct}
	}
	fmt.Printf("sign: %d images; c=%d d=%v rate=%v/s GOMAXPROCS=%d\n", len(imgs), lf.c, lf.d, lf.rate, runtime.GOMAXPROCS(0))
	u := lf.url + "/api/v1/sign?signing_key_id=" + url.QueryEscape(*signingKey)
	res := runLoad(u, map[string]string{"Authorization": "Bearer " + *apiKey}, reqs, lf.c, lf.d, lf.rate, http.StatusCreated)
	res.print(os.Stdout, "POST /api/v1/sign")
	return nil
}
