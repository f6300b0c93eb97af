package merkle_test

import (
	"fmt"

	"github.com/provenant/provenant/shared/merkle"
)

func Example() {
	var leaves []merkle.Hash
	for _, d := range []string{"record a", "record b", "record c"} {
		leaves = append(leaves, merkle.LeafHash([]byte(d)))
	}
	tree := merkle.Build(leaves)
	proof, _ := tree.InclusionProof(2)

	// A verifier needs the leaf, its index, the tree size, the audit path and
	// the anchored root.
	err := merkle.VerifyInclusion(2, tree.Size(), leaves[2], proof, tree.Root())
	fmt.Println(len(proof), err)

	err = merkle.VerifyInclusion(2, tree.Size(), leaves[1], proof, tree.Root())
	fmt.Println(err != nil)
	// Output:
	// 1 <nil>
	// true
}
