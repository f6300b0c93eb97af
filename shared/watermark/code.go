package watermark

import "math/bits"

// Message layout, identical for every format version: a 4-bit format
// version, the 64-bit payload and a 24-bit CRC, most significant bit first.
// The codeword is that message, terminated with constraintLen-1 zero bits
// and encoded with a rate-1/3 convolutional code.
const (
	versionBits   = 4
	payloadBits   = 64
	crcBits       = 24
	msgBits       = versionBits + payloadBits + crcBits // 92
	constraintLen = 7
	codeRate      = 3
	codedBits     = (msgBits + constraintLen - 1) * codeRate // 294
	numStates     = 1 << (constraintLen - 1)
)

// convPolys are the generator polynomials of the K=7 rate-1/3 code used by
// 3GPP and many others (octal 133, 171, 165).
var convPolys = [codeRate]uint8{0o133, 0o171, 0o165}

// message returns the msgBits bits (0/1) for payload p in format version v.
func message(p Payload, v uint8) []uint8 {
	m := make([]uint8, 0, msgBits)
	for i := versionBits - 1; i >= 0; i-- {
		m = append(m, (v>>uint(i))&1)
	}
	for i := payloadBits - 1; i >= 0; i-- {
		m = append(m, uint8(uint64(p)>>uint(i))&1)
	}
	c := crc24(m, v)
	for i := crcBits - 1; i >= 0; i-- {
		m = append(m, uint8(c>>uint(i))&1)
	}
	return m
}

// parseMessage checks the CRC of a decoded message and returns its version
// and payload; ok is false when the check fails.
func parseMessage(m []uint8) (p Payload, v uint8, ok bool) {
	if len(m) != msgBits {
		return 0, 0, false
	}
	for i := 0; i < versionBits; i++ {
		v = v<<1 | m[i]
	}
	var u uint64
	for i := versionBits; i < versionBits+payloadBits; i++ {
		u = u<<1 | uint64(m[i])
	}
	var c uint32
	for i := versionBits + payloadBits; i < msgBits; i++ {
		c = c<<1 | uint32(m[i])
	}
	if crc24(m[:versionBits+payloadBits], v) != c {
		return 0, 0, false
	}
	return Payload(u), v, true
}

// crc24 is CRC-24/OpenPGP (polynomial 0x864CFB, initial value 0xB704CE) over
// bits, XORed with a per-version constant so that a codeword of one format
// version never checks as another.
func crc24(bitsIn []uint8, v uint8) uint32 {
	crc := uint32(0xB704CE)
	for _, b := range bitsIn {
		top := (crc>>23)&1 ^ uint32(b&1)
		crc = (crc << 1) & 0xFFFFFF
		if top == 1 {
			crc ^= 0x864CFB
		}
	}
	return crc ^ (uint32(v) * 0x5A3C69 & 0xFFFFFF)
}

// convEncode encodes msg (0/1 bits) and its zero tail; the result has
// (len(msg)+constraintLen-1)*codeRate bits.
func convEncode(msg []uint8) []uint8 {
	out := make([]uint8, 0, (len(msg)+constraintLen-1)*codeRate)
	state := uint8(0)
	emit := func(b uint8) {
		reg := (state<<1 | b) & 0x7f
		for _, g := range convPolys {
			out = append(out, uint8(bits.OnesCount8(reg&g)&1))
		}
		state = reg & (numStates - 1)
	}
	for _, b := range msg {
		emit(b & 1)
	}
	for i := 0; i < constraintLen-1; i++ {
		emit(0)
	}
	return out
}

// viterbi decodes soft values (positive means bit 1) of a terminated
// codeword into len(soft)/codeRate-(constraintLen-1) message bits, choosing
// the codeword with the largest correlation to soft (maximum likelihood for
// Gaussian noise).
func viterbi(soft []float64) []uint8 {
	steps := len(soft) / codeRate
	var outSign [128][codeRate]float64
	for reg := 0; reg < 128; reg++ {
		for j, g := range convPolys {
			if bits.OnesCount8(uint8(reg)&g)&1 == 1 {
				outSign[reg][j] = 1
			} else {
				outSign[reg][j] = -1
			}
		}
	}
	negInf := -1e300
	var metric, next [numStates]float64
	for i := range metric {
		metric[i] = negInf
	}
	metric[0] = 0
	surv := make([][numStates]uint8, steps)
	for t := 0; t < steps; t++ {
		for i := range next {
			next[i] = negInf
		}
		s0, s1, s2 := soft[t*codeRate], soft[t*codeRate+1], soft[t*codeRate+2]
		for st := 0; st < numStates; st++ {
			if metric[st] == negInf {
				continue
			}
			for b := 0; b < 2; b++ {
				reg := (st<<1 | b) & 0x7f
				o := &outSign[reg]
				m := metric[st] + s0*o[0] + s1*o[1] + s2*o[2]
				ns := reg & (numStates - 1)
				if m > next[ns] {
					next[ns] = m
					surv[t][ns] = uint8(st)
				}
			}
		}
		metric = next
	}
	dec := make([]uint8, steps)
	st := 0
	for t := steps - 1; t >= 0; t-- {
		dec[t] = uint8(st & 1)
		st = int(surv[t][st])
	}
	return dec[:steps-(constraintLen-1)]
}
