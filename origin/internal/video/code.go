package video

import (
	"encoding/binary"
	"hash/crc32"
)

// The temporal mark's channel code: the 64-bit payload and a CRC-32C are
// convolutionally encoded (constraint length 7, rate 1/3, the classic
// 133/171/165 octal generators) and decoded by a soft-decision Viterbi
// decoder from the sum of every frame's evidence.
const (
	codeK       = 7
	codeRate    = 3
	msgBits     = 64 + 32
	codedBits   = (msgBits + codeK - 1) * codeRate
	codeStates  = 1 << (codeK - 1)
	temporalTag = 2 // folded into the CRC: the mark's version
)

var codePolys = [codeRate]uint32{0o133, 0o171, 0o165}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// messageBits returns the payload and its CRC as msgBits bits, most
// significant first.
func messageBits(p uint64) []uint8 {
	var b [13]byte
	binary.BigEndian.PutUint64(b[:8], p)
	b[8] = temporalTag
	binary.BigEndian.PutUint32(b[9:], crc32.Checksum(b[:9], crcTable))
	bits := make([]uint8, 0, msgBits)
	for _, x := range append(b[:8:8], b[9:]...) {
		for i := 7; i >= 0; i-- {
			bits = append(bits, x>>uint(i)&1)
		}
	}
	return bits
}

// parseMessage checks the CRC of msgBits decoded bits and returns the
// payload.
func parseMessage(bits []uint8) (uint64, bool) {
	if len(bits) != msgBits {
		return 0, false
	}
	var b [13]byte
	for i, v := range bits[:64] {
		b[i/8] |= v << uint(7-i%8)
	}
	var got uint32
	for _, v := range bits[64:] {
		got = got<<1 | uint32(v)
	}
	b[8] = temporalTag
	return binary.BigEndian.Uint64(b[:8]), crc32.Checksum(b[:9], crcTable) == got
}

func parity(x uint32) uint8 {
	x ^= x >> 16
	x ^= x >> 8
	x ^= x >> 4
	x ^= x >> 2
	x ^= x >> 1
	return uint8(x & 1)
}

// convEncode encodes msg followed by codeK-1 zero bits (the tail that
// brings the encoder back to state 0).
func convEncode(msg []uint8) []uint8 {
	out := make([]uint8, 0, (len(msg)+codeK-1)*codeRate)
	var reg uint32
	for i := 0; i < len(msg)+codeK-1; i++ {
		var b uint32
		if i < len(msg) {
			b = uint32(msg[i])
		}
		reg = (reg<<1 | b) & (1<<codeK - 1)
		for _, g := range codePolys {
			out = append(out, parity(reg&g))
		}
	}
	return out
}

// viterbi decodes soft values (positive means coded bit 0, the magnitude
// the confidence) into the most likely message of len(soft)/codeRate -
// (codeK-1) bits, the path ending in state 0.
func viterbi(soft []float64) []uint8 {
	steps := len(soft) / codeRate
	n := steps - (codeK - 1)
	if n <= 0 {
		return nil
	}
	// out[s][j] is the coded bit j of the transition into state s with
	// the newest input bit s&1 from the state (s>>1)|(old bit<<5).
	metric := make([]float64, codeStates)
	next := make([]float64, codeStates)
	for i := range metric {
		metric[i] = -1e300
	}
	metric[0] = 0
	from := make([][]uint8, steps) // surviving predecessor's dropped bit
	for t := 0; t < steps; t++ {
		from[t] = make([]uint8, codeStates)
		sv := soft[t*codeRate : t*codeRate+codeRate]
		for s := 0; s < codeStates; s++ {
			best, bestBit := -1e300, uint8(0)
			for old := uint32(0); old < 2; old++ {
				prev := uint32(s)>>1 | old<<(codeK-2)
				if metric[prev] <= -1e299 {
					continue
				}
				reg := prev<<1 | uint32(s)&1
				m := metric[prev]
				for j, g := range codePolys {
					if parity(reg&g) == 0 {
						m += sv[j]
					} else {
						m -= sv[j]
					}
				}
				if m > best {
					best, bestBit = m, uint8(old)
				}
			}
			next[s], from[t][s] = best, bestBit
		}
		metric, next = next, metric
	}
	bits := make([]uint8, steps)
	s := uint32(0)
	for t := steps - 1; t >= 0; t-- {
		bits[t] = uint8(s & 1)
		s = s>>1 | uint32(from[t][s])<<(codeK-2)
	}
	return bits[:n]
}
