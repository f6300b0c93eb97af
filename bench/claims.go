package main

// go run ./bench claims: how well look-before-mark ties a copier's
// geometric edit of a signed picture to its record (recall), and how
// often it ties an unrelated picture (false matches), for the three
// comparisons it has grown: the plain 256-bit hash, the hash of every
// mirror and quarter turn (phash.Dihedral, exact at sign, from the bits
// at register), and the geometric hashes kept for signed pictures
// (phash.Geometric: crops and small rotations).

import (
	"flag"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/image/draw"

	"github.com/provenant/provenant/shared/imagex"
	"github.com/provenant/provenant/shared/limits"
	"github.com/provenant/provenant/shared/phash"
)

// copierEdit is a copier's geometric edit: a mirror or turn, a rotation
// (whose empty corners are cut away), then a crop of every side.
type copierEdit struct {
	tr   phash.Transform
	crop float64
	deg  float64
}

func (e copierEdit) String() string {
	var parts []string
	if e.tr != phash.Identity {
		parts = append(parts, e.tr.String())
	}
	if e.deg != 0 {
		parts = append(parts, fmt.Sprintf("rotated %g° (corners cut)", e.deg))
	}
	if e.crop != 0 {
		parts = append(parts, fmt.Sprintf("crop %g%%/side", 100*e.crop))
	}
	return strings.Join(parts, ", ")
}

func copierEdits() []copierEdit {
	var out []copierEdit
	for tr := phash.Transform(1); tr < phash.Transforms; tr++ {
		out = append(out, copierEdit{tr: tr, crop: 0.02})
	}
	return append(out,
		copierEdit{crop: 0.02}, copierEdit{crop: 0.05}, copierEdit{crop: 0.10}, copierEdit{crop: 0.15}, copierEdit{crop: 0.20},
		copierEdit{deg: 1, crop: 0.02}, copierEdit{deg: 2}, copierEdit{deg: -4}, copierEdit{deg: 7}, copierEdit{deg: 7, crop: 0.125},
		copierEdit{tr: phash.MirrorX, deg: 1, crop: 0.02}, copierEdit{tr: phash.MirrorX, crop: 0.10},
		copierEdit{tr: phash.Transpose | phash.MirrorX, deg: -3, crop: 0.05},
	)
}

// applyEdit returns src under e: the mirror or turn (imagex.Orient), the
// rotation with its corners cut (rotateCrop: the largest centred
// rectangle of the same aspect), then the crop.
func applyEdit(src image.Image, e copierEdit) (image.Image, error) {
	m := imagex.Orient(src, e.tr.EXIFOrientation())
	if e.deg != 0 {
		var err error
		if m, err = rotateCrop(e.deg)(m, ""); err != nil {
			return nil, err
		}
	}
	return crop(m, e.crop), nil
}

// claimHashes is what look-before-mark knows of a picture: as a record,
// its hash and geometric hashes; as an upload, its exact variants (sign)
// and the variants from its hash's bits (register).
type claimHashes struct {
	name     string
	dir      string
	h        phash.Hash
	geo      []phash.Hash
	dihedral [phash.Transforms]phash.Hash
}

func (c claimHashes) fromBits() [phash.Transforms]phash.Hash { return c.h.Dihedral() }

// minDist is the smallest 256-bit distance between any query and any of
// the record's hashes.
func minDist(queries []phash.Hash, rec []phash.Hash) int {
	best := phash.Bits256 + 1
	for _, q := range queries {
		for _, r := range rec {
			best = min(best, phash.Distance256(q.P256, r.P256))
		}
	}
	return best
}

func hashesOf(img image.Image) (claimHashes, error) {
	l := imagex.ToLuma(img)
	vs, err := phash.Dihedral(l)
	if err != nil {
		return claimHashes{}, err
	}
	geo, err := phash.Geometric(l)
	if err != nil {
		return claimHashes{}, err
	}
	return claimHashes{h: vs[phash.Identity], geo: geo, dihedral: vs}, nil
}

// fitLong scales img down to at most long pixels on its long side.
func fitLong(img image.Image, long int) image.Image {
	b := img.Bounds()
	if max(b.Dx(), b.Dy()) <= long {
		return img
	}
	w, h := long, max(1, b.Dy()*long/b.Dx())
	if b.Dy() > b.Dx() {
		w, h = max(1, b.Dx()*long/b.Dy()), long
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.BiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

func claimsCommand(fs *flag.FlagSet) func() error {
	dirs := fs.String("images", "bench/images,shared/testdata/images,origin/internal/server/testdata", "comma-separated directories of photos")
	long := fs.Int("long", 1600, "scale originals to at most this long side first (the hashes work on 256×256)")
	unrelated := fs.String("unrelated", "bench/images", "directory whose photos are paired as unrelated (its artworks grouped by file name); the others are the same few pictures in several formats")
	return func() error {
		var files []string
		for _, d := range strings.Split(*dirs, ",") {
			fsList, err := listImages(d)
			if err != nil {
				fmt.Fprintf(os.Stderr, "claims: skipping %s: %v\n", d, err)
				continue
			}
			for _, f := range fsList {
				if !strings.Contains(filepath.Base(f), "tiny") {
					files = append(files, f)
				}
			}
		}
		if len(files) < 2 {
			return fmt.Errorf("need at least 2 images, found %d", len(files))
		}
		lim := limits.Default()
		edits := copierEdits()
		type tally struct{ plain, dihedral, sign, register, n int }
		// The sign comparison's distance for every edited copy (true ties),
		// by whether the plain hash alone would have tied it.
		var signTrue, regTrue []int
		per := make([]tally, len(edits))
		var recs []claimHashes
		start := time.Now()
		for _, f := range files {
			_, dec, err := readDecoded(f, lim, "claims: skipping")
			if err != nil {
				return err
			}
			if dec == nil {
				continue
			}
			orig := fitLong(dec.Image, *long)
			rec, err := hashesOf(orig)
			if err != nil {
				return err
			}
			rec.name, rec.dir = filepath.Base(f), filepath.Dir(f)
			fmt.Fprintf(os.Stderr, "claims: %d/%d %s (%v)\n", len(recs)+1, len(files), rec.name, time.Since(start).Round(time.Second))
			recs = append(recs, rec)
			own := append([]phash.Hash{rec.h}, rec.geo...)
			for i, e := range edits {
				edited, err := applyEdit(orig, e)
				if err != nil {
					return err
				}
				file, err := jpegOf(edited, 85)
				if err != nil {
					return err
				}
				cd, err := imagex.Decode(file, lim)
				if err != nil {
					return err
				}
				up, err := hashesOf(cd.Image)
				if err != nil {
					return err
				}
				bits := up.fromBits()
				t := &per[i]
				t.n++
				if phash.Distance256(up.h.P256, rec.h.P256) <= phash.NearDistance256 {
					t.plain++
				}
				if minDist(up.dihedral[:], []phash.Hash{rec.h}) <= phash.NearDistance256 {
					t.dihedral++
				}
				ds, dr := minDist(up.dihedral[:], own), minDist(bits[:], own)
				signTrue, regTrue = append(signTrue, ds), append(regTrue, dr)
				if ds <= phash.NearDistance256 {
					t.sign++
				}
				if dr <= phash.NearDistance256 {
					t.register++
				}
			}
		}
		w := os.Stdout
		fmt.Fprintf(w, "%d photos, %d edits each, JPEG q85, in %v\n\n", len(recs), len(edits), time.Since(start).Round(time.Second))
		fmt.Fprintln(w, "| copier's edit | plain hash | + mirrors/turns | sign: + geometric hashes | register: variants from bits |")
		fmt.Fprintln(w, "|---|---|---|---|---|")
		var all tally
		for i, e := range edits {
			t := per[i]
			fmt.Fprintf(w, "| %s | %d/%d | %d/%d | %d/%d | %d/%d |\n", e, t.plain, t.n, t.dihedral, t.n, t.sign, t.n, t.register, t.n)
			all.plain, all.dihedral, all.sign, all.register, all.n = all.plain+t.plain, all.dihedral+t.dihedral, all.sign+t.sign, all.register+t.register, all.n+t.n
		}
		fmt.Fprintf(w, "| **all** | %d/%d | %d/%d | %d/%d | %d/%d |\n\n", all.plain, all.n, all.dihedral, all.n, all.sign, all.n, all.register, all.n)

		// Unrelated pictures: every ordered pair of different artworks, one
		// as the record, the other as an upload.
		var plain, dih, sign, reg []int
		// Every single comparison sign makes for a pair (8 variants × the
		// record's hash and its 8 geometric hashes), for the tail of the
		// distribution a registry of N records samples 72·N times.
		var each []int
		type close struct {
			d    int
			a, b string
		}
		var closest []close
		for i, r := range recs {
			own := append([]phash.Hash{r.h}, r.geo...)
			for j, u := range recs {
				if i == j || family(r.name) == family(u.name) || r.dir != *unrelated || u.dir != *unrelated {
					continue
				}
				bits := u.fromBits()
				plain = append(plain, phash.Distance256(u.h.P256, r.h.P256))
				dih = append(dih, minDist(u.dihedral[:], []phash.Hash{r.h}))
				d := minDist(u.dihedral[:], own)
				sign = append(sign, d)
				for _, q := range u.dihedral {
					for _, o := range own {
						each = append(each, phash.Distance256(q.P256, o.P256))
					}
				}
				reg = append(reg, minDist(bits[:], own))
				closest = append(closest, close{d, u.name, r.name})
			}
		}
		fmt.Fprintln(w, "| unrelated ordered pairs | n | within 64 | min | p0.1 | p1 | median |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		for _, row := range []struct {
			name string
			ds   []int
		}{{"plain hash", plain}, {"+ mirrors/turns", dih}, {"sign: + geometric hashes", sign}, {"register: variants from bits", reg}} {
			fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %d |\n", row.name, len(row.ds), count(row.ds, phash.NearDistance256),
				pct(row.ds, 0), pctf(row.ds, 0.1), pct(row.ds, 1), pct(row.ds, 50))
		}
		fmt.Fprintf(w, "\nSingle comparisons of unrelated pictures (sign: 8 variants × 9 hashes per pair): %d\n\n", len(each))
		fmt.Fprintln(w, "| 256-bit distance ≤ | comparisons | fraction |")
		fmt.Fprintln(w, "|---|---|---|")
		for _, t := range []int{64, 72, 80, 88, 96, 104} {
			n := count(each, t)
			fmt.Fprintf(w, "| %d | %d | %.2g |\n", t, n, float64(n)/float64(max(1, len(each))))
		}
		fmt.Fprintln(w, "\nThreshold sweep: copies tied (all edits) against unrelated single comparisons within T:")
		fmt.Fprintln(w, "\n| T | sign: copies tied | register: copies tied | unrelated comparisons within T |")
		fmt.Fprintln(w, "|---|---|---|---|")
		for _, t := range []int{40, 48, 56, 64} {
			fmt.Fprintf(w, "| %d | %d/%d | %d/%d | %d/%d |\n", t, count(signTrue, t), len(signTrue), count(regTrue, t), len(regTrue), count(each, t), len(each))
		}
		sort.Slice(closest, func(a, b int) bool { return closest[a].d < closest[b].d })
		fmt.Fprintln(w, "\nClosest unrelated pairs (sign comparison: upload ~ record):")
		for _, c := range closest[:min(5, len(closest))] {
			fmt.Fprintf(w, "  %4d  %s  ~  %s\n", c.d, c.a, c.b)
		}
		return nil
	}
}
