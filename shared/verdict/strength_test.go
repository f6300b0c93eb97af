package verdict

import "testing"

// TestStrengthTable pins the evidence ranking [Strength] documents: the signed
// SHA-256, or the watermark together with a near perceptual hash (the
// record's watermark in its own picture), is signed evidence; a watermark
// alone ranks below it, a near hash alone below that; the original's hash
// only adds one step.
func TestStrengthTable(t *testing.T) {
	tests := []struct {
		name                    string
		shaEq, wmEq, near, orig bool
		want                    int
	}{
		{"nothing", false, false, false, false, StrengthNone},
		{"signed sha256", true, false, false, false, StrengthSigned},
		{"watermark in its own picture", false, true, true, false, StrengthSigned},
		{"watermark alone (picture far from the signed one)", false, true, false, false, StrengthWatermark},
		{"near perceptual hash alone", false, false, true, false, StrengthPerceptual},
		{"original upload's sha256 alone", false, false, false, true, StrengthOriginal},
		{"watermark alone and the original's sha256", false, true, false, true, StrengthWatermark + StrengthOriginal},
		{"signed sha256 and the original's", true, false, true, true, StrengthSigned + StrengthOriginal},
	}
	for _, tc := range tests {
		if got := Strength(tc.shaEq, tc.wmEq, tc.near, tc.orig); got != tc.want {
			t.Errorf("%s: Strength = %d, want %d", tc.name, got, tc.want)
		}
	}
	if !(StrengthSigned > StrengthWatermark+StrengthOriginal && StrengthWatermark > StrengthPerceptual+StrengthOriginal) {
		t.Error("the original's hash can lift a weaker kind of evidence over a stronger one")
	}
}
