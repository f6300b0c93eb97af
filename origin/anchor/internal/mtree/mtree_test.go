package mtree

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"
)

func leafHash(data []byte) [32]byte {
	return sha256.Sum256(append([]byte{0x00}, data...))
}

// mth is RFC 9162's recursive definition, the reference for Build.
func mth(leaves [][32]byte) [32]byte {
	switch n := len(leaves); n {
	case 0:
		return EmptyRoot
	case 1:
		return leaves[0]
	default:
		k := 1
		for k*2 < n {
			k *= 2
		}
		return NodeHash(mth(leaves[:k]), mth(leaves[k:]))
	}
}

func leaves(n int) [][32]byte {
	out := make([][32]byte, n)
	for i := range out {
		out[i] = leafHash([]byte(fmt.Sprint(i)))
	}
	return out
}

// RFC 6962/9162 reference vectors (transparency-dev/merkle testdata): the
// roots of the trees over the 8 standard leaf inputs, sizes 1..8.
func TestRootsMatchReferenceVectors(t *testing.T) {
	inputs := []string{"", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"}
	want := []string{
		"6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
		"fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
		"aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
		"d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
		"4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
		"76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
		"ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
		"5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
	}
	var ls [][32]byte
	for i, in := range inputs {
		b, _ := hex.DecodeString(in)
		ls = append(ls, leafHash(b))
		got := Build(ls).Root()
		if hex.EncodeToString(got[:]) != want[i] {
			t.Errorf("root(size %d) = %x, want %s", i+1, got, want[i])
		}
	}
	if Build(nil).Root() != EmptyRoot {
		t.Errorf("empty root mismatch")
	}
}

func TestEveryProofVerifiesAndMutationsFail(t *testing.T) {
	for n := 1; n <= 70; n++ {
		ls := leaves(n)
		tr := Build(ls)
		root := tr.Root()
		if want := mth(ls); root != want {
			t.Fatalf("size %d: Build root %x != MTH %x", n, root, want)
		}
		for i := range n {
			path, err := tr.Proof(uint64(i))
			if err != nil {
				t.Fatal(err)
			}
			if err := VerifyInclusion(ls[i], uint64(i), uint64(n), path, root); err != nil {
				t.Fatalf("size %d index %d: %v", n, i, err)
			}
			// Wrong index, other leaf, flipped path bit, truncated/extended path.
			// (Changing only the size can legitimately give the same root:
			// RFC 9162 binds the size through the signed tree head.)
			type mutation struct {
				name string
				idx  uint64
				path [][32]byte
				leaf [32]byte
			}
			bad := []mutation{
				{"other-leaf", uint64(i), path, leafHash([]byte("x"))},
				{"extended", uint64(i), append(append([][32]byte{}, path...), root), ls[i]},
			}
			if i+1 < n {
				bad = append(bad, mutation{"index+1", uint64(i + 1), path, ls[i]})
			}
			if len(path) > 0 {
				flipped := append([][32]byte{}, path...)
				flipped[0][0] ^= 1
				bad = append(bad, mutation{"flipped", uint64(i), flipped, ls[i]},
					mutation{"truncated", uint64(i), path[:len(path)-1], ls[i]})
			}
			for _, b := range bad {
				if err := VerifyInclusion(b.leaf, b.idx, uint64(n), b.path, root); !errors.Is(err, ErrProof) {
					t.Fatalf("size %d index %d %s: err = %v, want ErrProof", n, i, b.name, err)
				}
			}
		}
	}
}
