package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/watermark"
)

// runWM is the file-level tool: "wm embed -in IN -out OUT -payload HEX16"
// and "wm extract -in FILE".
func runWM(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: wm embed -in IN -out OUT -payload HEX16 | wm extract -in FILE")
	}
	switch args[0] {
	case "-h", "-help", "--help":
		fmt.Fprintln(os.Stderr, "usage: wm embed | extract | attack | synth DIR; wm SUBCOMMAND -h prints its flags")
		return flag.ErrHelp
	case "embed":
		fs := flag.NewFlagSet("wm embed", flag.ContinueOnError)
		in := fs.String("in", "", "input image (jpg, png, webp)")
		out := fs.String("out", "", "output image, in the input's format (JPEG q92 for JPEG input, PNG for PNG and WebP input)")
		hex := fs.String("payload", "", "payload, 16 hex digits")
		version := fs.Int("version", watermark.CurrentVersion, "format version")
		img, err := parseAndDecode(fs, args[1:], in)
		if err != nil {
			return err
		}
		p, err := watermark.ParsePayload(*hex)
		if err != nil {
			return err
		}
		marked, err := watermark.Embed(img, p, watermark.WithVersion(*version))
		if err != nil {
			return err
		}
		psnr, err := watermark.PSNR(imagex.ToLuma(img), imagex.ToLuma(marked))
		if err != nil {
			return err
		}
		format := "png"
		switch strings.ToLower(filepath.Ext(*in)) {
		case ".jpg", ".jpeg":
			format = "jpeg"
		case ".webp":
			// Go has no WebP encoder: write lossless PNG bytes instead.
			fmt.Fprintln(os.Stderr, "wm embed: WebP input, writing PNG (no WebP encoder in Go)")
		}
		if err := writeImage(*out, marked, format); err != nil {
			return err
		}
		fmt.Printf("wrote %s (%s) payload %s luma PSNR %.2f dB\n", *out, format, p, psnr)
		return nil
	case "extract":
		fs := flag.NewFlagSet("wm extract", flag.ContinueOnError)
		in := fs.String("in", "", "image file")
		img, err := parseAndDecode(fs, args[1:], in)
		if err != nil {
			return err
		}
		p, d, err := watermark.Extract(imagex.ToLuma(img))
		if err != nil {
			return err
		}
		out := map[string]any{"payload": "none", "strength": d.Strength}
		if d.Found {
			out["payload"] = p.String()
			out["version"] = d.Version
			out["bit_errors"] = d.BitErrors
			out["scale"] = d.Scale
		}
		return json.NewEncoder(os.Stdout).Encode(out)
	case "attack":
		fs := flag.NewFlagSet("wm attack", flag.ContinueOnError)
		in := fs.String("in", "", "input image")
		out := fs.String("out", "", "output PNG")
		name := fs.String("attack", "", "attack name (as in the robustness table)")
		img, err := parseAndDecode(fs, args[1:], in)
		if err != nil {
			return err
		}
		atk, err := attacksNamed(*name)
		if *name == "" || err != nil || len(atk) != 1 {
			return fmt.Errorf("wm attack: unknown attack %q", *name)
		}
		return inTempDir("wm-attack-", func(tmp string) error {
			m, err := atk[0].fn(img, tmp)
			if err != nil {
				return err
			}
			return writePNG(*out, m)
		})
	case "synth":
		if len(args) != 2 {
			return errors.New("usage: wm synth DIR")
		}
		return dumpSynth(args[1])
	default:
		return fmt.Errorf("wm: unknown subcommand %q", args[0])
	}
}

// writeImage encodes m to path as "jpeg" (quality 92) or "png".
func writeImage(path string, m image.Image, format string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	switch format {
	case "jpeg":
		err = jpeg.Encode(f, m, &jpeg.Options{Quality: 92})
	default:
		err = png.Encode(f, m)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// parseAndDecode parses a wm subcommand's flags and decodes the image its
// -in flag names.
func parseAndDecode(fs *flag.FlagSet, args []string, in *string) (image.Image, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	img, err := decodeFile(*in)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", *in, err)
	}
	return img, nil
}
