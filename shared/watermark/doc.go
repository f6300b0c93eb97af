// Package watermark embeds a 64-bit payload invisibly in an image's
// luminance and extracts it again after the image was re-encoded, resized,
// cropped or colour-adjusted, so a file stripped of its metadata can still be
// traced to its provenance record.
//
// # Format (version 1)
//
// The luminance is area-averaged to a canonical working image whose short
// side is 256 px (TrustMark's trick: the mark is defined at a fixed
// resolution, so a resize of the whole image is no attack). The working
// plane is covered by 64×64 tiles, each carrying the whole codeword as 1024
// keyed ±1 spread-spectrum chips of 2×2 working pixels: 256 pilot chips with
// a fixed sign (synchronisation) and 768 data chips. The message is a 4-bit
// format version, the payload and a CRC-24 (seeded with the version), 92
// bits, encoded with the K=7 rate-1/3 convolutional code to 294 coded bits.
// The residual is scaled by a texture mask (less in flat regions), upsampled
// bilinearly and added to the luminance only, so chroma is untouched, at a
// strength chosen to meet a target luminance PSNR (43 dB by default).
//
// The decoder area-averages to the same working size, high-passes, folds
// the plane modulo the tile (summing every tile, whole or partial), finds the
// tile offset by FFT cross-correlation with the pilot, sums the soft chip
// values per coded bit and runs a soft-decision Viterbi decoder. It reports a
// watermark only if the CRC and the version field check.
//
// # False positives
//
// On unmarked input the decoded bits are effectively random, so one decode
// attempt passes the CRC-24 and the 4-bit version check with probability
// 2^-28. Extract makes at most a fixed number of attempts per format (see
// the scheme tables), which bounds the false-positive rate per image by that
// count times 2^-28.
package watermark
