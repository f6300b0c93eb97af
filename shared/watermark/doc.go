// Package watermark embeds a 64-bit payload invisibly in an image's
// luminance and extracts it again after the image was re-encoded, resized,
// cropped, slightly rotated or colour-adjusted, so a file stripped of its
// metadata can still be traced to its provenance record.
//
// Sign time calls [Embed]; verify time calls [Extract] on the luminance
// plane the verifier already decoded for the perceptual hash. Both are pure
// Go and build for js/wasm and wasip1.
//
// # Format version 2 (written by default)
//
//   - Canonical resolution. The luminance is area-averaged to a working
//     image whose short side is 256 px (TrustMark's trick), and the mark is
//     defined there, so resizing the whole image is no attack: the decoder
//     normalises to the same size.
//   - Tiles. The working plane is covered by 64×64 tiles, each carrying the
//     whole codeword as 1024 keyed ±1 spread-spectrum chips of 2×2 working
//     pixels: 40 % pilot chips with a fixed sign (synchronisation) and 60 %
//     data chips. Crops keep whole and partial tiles; the decoder folds the
//     plane modulo the tile and so sums every tile it sees.
//   - Code. The message is a 4-bit format version, the payload and a
//     CRC-24 seeded with the version (92 bits), encoded with the K=7 rate-1/3
//     convolutional code (294 coded bits) and decoded with soft-decision
//     Viterbi from the per-bit correlation sums.
//   - Invisibility. The amplitude, in luminance levels, is 0.9 on flat
//     regions and grows with the square root of local activity up to 6; if
//     that exceeds a luminance PSNR of 42.2 dB, the part above the flat
//     amplitude is scaled down (flat regions weigh most in the decoder).
//     The residual is upsampled bilinearly and added to the luminance only
//     (YCbCr images keep Cb/Cr bit for bit, RGB images get the same offset
//     on R, G and B), with a deterministic dither before rounding so
//     sub-level marks survive on flat regions instead of being rounded away.
//   - Informed embedding. Before writing, Embed runs the decoder's
//     statistic on the host and gives more energy to coded bits the host
//     works against, less to those it favours (gains 0.7–1.8, same total
//     energy; improved spread spectrum in the sense of Malvar and Florêncio).
//   - Detection. High-pass (x minus its 3×3 mean), divided by the local
//     power (5×5, floored), clipped at 3 RMS, so that flat regions, where the
//     mark is nearly all there is, outweigh texture and text; then a bounded
//     search: scale 1 alone; then 62 scales from 1 to 2.54 (crops to 40 % of
//     the short side) on two 160×160 windows at chip resolution by FFT
//     correlation with the pilot, the 3 best refined (±0.5 %) on the whole
//     image at pixel resolution, aligned to the half-pixel; only if all that
//     fails, ±1° and ±2° rotations with scales 1 to 1.1, and ±3° to ±10°
//     at the scales around the one a same-aspect crop of the rotated
//     picture implies (cos a + |sin a|·long/short side) and at scale 1.
//   - Flips and quarter turns. After scale 1 fails, the whole plane
//     folded once is correlated with the pilot under the seven other
//     flips and quarter turns of the square (the tile maps onto itself);
//     the best, if its z-score passes the gate, is turned back and decoded
//     once (Detection.Flipped, Detection.Quarter). Combined with a crop
//     (which moves the scale too), every chip-level fold of the crop
//     search is correlated with the pilot under all eight transforms, and
//     a candidate is refined and decoded on the plane turned back.
//   - Rotations from ±3° to ±10° are also folded at scale 1 (a rotation
//     that keeps the canvas, with black corners, keeps the scale).
//   - A picture inside a busy frame (a phone screenshot at 0.2–0.35 of the
//     photo's size, framed by interface, or a desktop browser page at
//     0.2–0.6 with a sidebar of text beside it): the longest run of
//     detailed rows, then within it the longest run of detailed columns,
//     then within those the longest run of detailed rows again, is taken
//     as the picture's box, and the full-resolution luminance inside it is
//     searched as a picture of its own (scale 1, then the crop search).
//     Detection.Region reports the box in the examined picture's pixels.
//   - The picture smaller than its frame (padding, borders, screenshots).
//     Rows and columns of the high-passed plane that carry almost no
//     energy give the picture's box in a flat frame; the scales within
//     ±3.6 % of its short side over the plane's (0.48 to 0.99) join the
//     crop search, folded inside the box.
//     Candidates whose pilot z-score is under 6 are not decoded (unmarked
//     images peak at 5.4 at most).
//   - A changed aspect ratio (the picture stretched along one axis). The
//     short axis keeps scale 1 on the working plane, so the plane is
//     folded once along it and only the long axis's scale (0.8 to 1.25)
//     is searched, on that profile; a candidate that passes the gate is
//     decoded from the luminance resampled per axis. Last, after the
//     rotations (a rotated crop also shows a per-axis peak).
//   - The whitened reading. A candidate whose other readings all fail is
//     read last from the working plane minus its least-squares prediction
//     from the 16 pixels two away (weights fitted on the picture), which
//     removes a structured texture such as a wood grain that the 3×3
//     high-pass keeps, while the mark, whose 2×2 chips have independent
//     signs, keeps its amplitude.
//   - Decoding a cropped or rotated candidate. Its scale is refined to
//     0.15 %, and an unrotated one is decoded from the full-resolution
//     luminance resampled onto the embedding grid the alignment implies, so
//     no working pixel straddles two chips.
//
// # Format version 1
//
// The same carrier, tile, chips and code with a 25 % pilot, no scale or
// rotation search and no informed embedding. Extract tries version 2, then
// version 1, so version-1 marks keep decoding.
//
// # False positives
//
// On unmarked input the Viterbi output is effectively random, so one decode
// attempt passes the CRC-24 and the 4-bit version check with probability
// 2^-28. Version 2 decodes at most 14 candidates per image (1 + 1 + 3 +
// 4 + 2 + 1 + 2: scale 1, a flip or quarter turn at scale 1, the crop
// search, a picture inside a busy frame, the rotation search, a changed
// aspect ratio, a residual perspective's bilinear and quadratic maps);
// the 6 of scale 1, the crop and the rotation search are read at most
// four times (the resampled embedding grid, the working plane's fold, the
// blocks weighted by their pilot evidence, the whitened plane's fold; the
// other readings only once every first reading of the search has
// failed), the perspective's two twice each (warp.go), the others once;
// version 1 makes 2 attempts. So Extract makes at most 6·4 + 6 + 4 + 2 =
// 36 attempts; format 2's 34 accept two version values (2 and 3), so the
// false-positive rate is at most (34·2 + 2) × 2^-28 ≈ 2.6·10^-7 per
// image, whatever the image. A wrong payload from a marked image needs
// the same CRC collision.
package watermark
