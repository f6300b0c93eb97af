package video

import (
	"math/rand/v2"
	"testing"
)

// TestCheckpoint: the sums are decoded after 1, 2, 4, 8, … frames only.
func TestCheckpoint(t *testing.T) {
	var got []int
	for n := range 70 {
		if checkpoint(n) {
			got = append(got, n)
		}
	}
	want := []int{1, 2, 4, 8, 16, 32, 64}
	if len(got) != len(want) {
		t.Fatalf("checkpoints %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("checkpoints %v, want %v", got, want)
		}
	}
}

// TestEarlyExitInPlace: frames that carry the mark in place confirm the
// payload on the first frame with the early exits on, and nothing more
// is read (no projection, no motion); without them every frame is read;
// the answer is the same payload.
func TestEarlyExitInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	const w, h, step, frames = 480, 270, 4, 12
	const payload = 0x0e0e_1111_2222_3333
	tall := studioTexture(r, w, h+frames*step)
	for _, early := range []bool{false, true} {
		emb := newTemporalEmbedder(w, h, payload)
		x := newTemporalExtractor(w, h)
		x.early = early
		for f := range frames {
			p := scroll(tall, w, h, step, f)
			emb.mark(p)
			x.add(noisy(r, p, 3))
		}
		res := x.decode()
		want, follows := frames, frames
		if early {
			want, follows = 1, 0
		}
		if !res.found || res.payload != payload || res.moved || x.frames != want || x.followed != follows || x.done() != early {
			t.Fatalf("early exits %v: found %v payload %x moved %v after %d frames read in place and %d followed, want %x from %d and %d",
				early, res.found, res.payload, res.moved, x.frames, x.followed, uint64(payload), want, follows)
		}
	}
}

// TestEarlyExitAlongTheMotion: a keyframe's mark dragged along with a
// scrolling picture (as in TestMotionCompensatedReading) is confirmed by
// the motion reading at one of its first checkpoints, and the reading
// stops there; without the early exits every frame is read and the
// answer is the same payload. (The first frame is the picture unmarked,
// so that nothing decodes in place.)
func TestEarlyExitAlongTheMotion(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	const w, h, step, frames = 480, 270, 4, 24
	const payload = 0x0dd5_c0ff_ee00_5678
	tall := studioTexture(r, w, h+frames*step)
	dragged := append([]uint8(nil), tall...)
	newTemporalEmbedder(w, h, payload).mark(dragged[:w*h])
	for _, early := range []bool{false, true} {
		x := newTemporalExtractor(w, h)
		x.early = early
		for f := range frames {
			src := dragged
			if f == 0 {
				src = tall
			}
			x.add(noisy(r, scroll(src, w, h, step, f), 3))
		}
		res := x.decode()
		if !res.found || res.payload != payload || !res.moved {
			t.Fatalf("early exits %v: found %v payload %x moved %v, want %x along the motion", early, res.found, res.payload, res.moved, uint64(payload))
		}
		if early && (!x.done() || x.followed >= movedLookFrames || !checkpoint(x.followed) || x.frames != x.followed) {
			t.Fatalf("early exits: done %v after %d frames followed (%d in place), want confirmed at a checkpoint before %d", x.done(), x.followed, x.frames, movedLookFrames)
		}
		if early {
			// Confirmed: a frame in between takes nothing either.
			followed := x.followed
			x.follow(noisy(r, scroll(dragged, w, h, step, 1), 3), false)
			if x.followed != followed {
				t.Fatalf("confirmed, yet the motion reading took another frame")
			}
		}
		if !early && (x.followed != frames || x.frames != frames) {
			t.Fatalf("no early exits: %d frames followed, %d in place, want %d", x.followed, x.frames, frames)
		}
	}
}

// weakCodeword is the codeword of payload as soft values with flipped of
// them turned weakly the other way: the decoder still finds the
// codeword (its CRC matches), and exactly flipped coded bits disagree.
func weakCodeword(t *testing.T, payload uint64, flipped int) []float64 {
	t.Helper()
	soft := make([]float64, codedBits)
	for i, b := range convEncode(messageBits(payload)) {
		soft[i] = 1 - 2*float64(b)
	}
	for j := range flipped {
		i := j * codedBits / flipped
		soft[i] = -0.05 * soft[i]
	}
	if p, ok := parseMessage(viterbi(soft)); !ok || p != payload {
		t.Fatalf("%d weak flips: the decoder lost the codeword; the case tests nothing", flipped)
	}
	return soft
}

// TestMovedNoMarkTest: after movedLookFrames frames, the motion reading
// stops when its sum is more than movedNoMarkErrors coded bits from its
// codeword, and goes on at that distance or nearer; it is looked at
// then only (and at the checkpoints); a sum within the motion reading's
// bound confirms its payload when some frame was read displaced, never
// when none was; once stopped, the motion reading reads nothing more and
// the final decode does not read its sum.
func TestMovedNoMarkTest(t *testing.T) {
	const payload = 0x7e57_0000_dead_0001
	for _, tc := range []struct {
		name                string
		followed, displaced int
		flipped             int
		rejected, confirmed bool
	}{
		{"at the test, no nearer than random", movedLookFrames, 5, movedNoMarkErrors + 1, true, false},
		{"at the test, at the limit", movedLookFrames, 5, movedNoMarkErrors, false, false},
		{"at the test, nothing displaced", movedLookFrames, 0, movedNoMarkErrors + 1, true, false},
		{"before the test", movedLookFrames - 1, 5, movedNoMarkErrors + 1, false, false},
		{"after the test", movedLookFrames + 1, 5, movedNoMarkErrors + 1, false, false},
		{"at a checkpoint, no nearer than random", 16, 5, movedNoMarkErrors + 1, false, false},
		{"at a checkpoint, within the bound", 8, 5, codedBits * 16 / 100, false, true},
		{"at the test, within the bound", movedLookFrames, 5, codedBits * 16 / 100, false, true},
		{"within the bound, nothing displaced", movedLookFrames, 0, codedBits * 16 / 100, false, false},
		{"within the bound, not a checkpoint", 9, 5, codedBits * 16 / 100, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newTemporalExtractor(64, 36)
			x.early = true
			x.frames, x.followed, x.displaced = 1, tc.followed, tc.displaced
			x.moved = weakCodeword(t, payload, tc.flipped)
			x.checkMoved()
			if x.rejected != tc.rejected || x.done() != tc.confirmed {
				t.Fatalf("%d of %d coded bits disagreeing after %d frames (%d displaced): rejected %v confirmed %v, want %v %v",
					tc.flipped, codedBits, tc.followed, tc.displaced, x.rejected, x.done(), tc.rejected, tc.confirmed)
			}
			if tc.confirmed {
				// The confirmed payload answers, whatever the sums hold
				// afterwards.
				clear(x.moved)
				if res := x.decode(); !res.found || res.payload != payload || !res.moved {
					t.Fatalf("confirmed: decode found %v payload %x moved %v", res.found, res.payload, res.moved)
				}
			}
			if !tc.rejected {
				return
			}
			// Stopped: nothing more is followed, and the sum (which the
			// looser final bound would take at 16 %) is not decoded.
			followed := x.followed
			x.follow(make([]uint8, 64*36), false)
			if x.followed != followed {
				t.Fatalf("rejected, yet the motion reading took another frame")
			}
			x.moved = weakCodeword(t, payload, codedBits*16/100)
			x.displaced = 5
			if res := x.decode(); res.found || !res.rejected {
				t.Fatalf("rejected: the final decode found %v (rejected %v), want nothing from the stopped motion sum", res.found, res.rejected)
			}
		})
	}
}

// TestNoMarkTestAfterEightFrames: on an unmarked clip that moves, read as
// Extract reads it (every other frame in place, the ones in between along
// the motion only), the motion reading stops after its 8th frame, 0.67 s
// at 12 frames a second, and the reading in place goes on to the end.
// Eight is what TestMotionGateSurvey measured (docs/video.md, "Cost"):
// every marked clip the motion reading recovers has confirmed by its 4th
// frame, and no unmarked file came within the test's bound by its 8th;
// looking later only spends more motion tracking on unmarked clips.
func TestNoMarkTestAfterEightFrames(t *testing.T) {
	r := rand.New(rand.NewPCG(55, 56))
	const w, h, step, frames = 480, 270, 4, 24
	tall := studioTexture(r, w, h+frames*step)
	x := newTemporalExtractor(w, h)
	x.early = true
	for f := range frames {
		p := noisy(r, scroll(tall, w, h, step, f), 3)
		if f%2 == 0 {
			x.add(p)
		} else {
			x.follow(p, false)
		}
	}
	res := x.decode()
	if !x.rejected || x.followed != 8 || x.displaced == 0 || x.frames != frames/2 || res.found || !res.rejected {
		t.Fatalf("rejected %v after %d frames followed (%d displaced), %d read in place, found %v: want the motion reading stopped after 8, all %d read in place, nothing found",
			x.rejected, x.followed, x.displaced, x.frames, res.found, frames/2)
	}
}
