package main

import "slices"

// Test selections for the packages whose full test run takes half a
// minute or more; each names the tests that guard the mutated checks.
const (
	anchorVerifyTests = "TestVerifyRejectsTampering"
	// accounts: the token tests, not TestLoginUnknownEmailDoesComparableWork,
	// whose timing comparison is not reliable on a loaded machine.
	accountsTokenTests = "TestToken|TestReset"
	// localsig: the global fit's and the grouping's tests, not the whole
	// package (a minute).
	localsigFitTests  = "TestToneCurveBendsAtTheKnees|TestKneeNeedsEnoughBlocks|TestLineReach|TestToneFitMostlyBlack|TestFlatSignedBlockGradients|TestColourFitClipsToGamut|TestColourGridSeesThinHeadline|TestColourGridSmallGroups"
	localsigEdgeTests = "TestEdgeAt|TestContainedPlacedByItsEdges"
	localsigFlatTests = "TestFlatPictureContained|TestFlatAtItsThresholds"
	// localsig: the residual floor's rules and the fit through the tone
	// curve.
	localsigFloorTests = "TestFaintLine|TestFaintLineSpansTwoRowsAtMost|TestFaintPatch|TestFaintBand|TestResidualFloor|TestStandsOut|TestColourFitThroughCurve|TestThroughCurveNeedsABend"
	// localsig: what clipping and the tone curve's slope explain.
	localsigClipTests = "TestHarshToneCopiesAreSame|TestDetailChangeFollowsSlope|TestBoostShortfall|TestGamutMean|TestDetailResiduals|TestBlurOnStrongColoursIsSeen|TestColourGrid$"
	ssrfTests         = "TestDialControlRefuses|TestCheckURL|TestDialTimeCheck|TestRedirectNotFollowed|TestRefusedWithoutAllowList|TestAddressClass"
)

// mutants are the security checks under mutation testing, by area: Merkle
// and anchoring proofs, record and receipt verification, local-signature
// and verdict thresholds, the webhook SSRF guard, authentication, scopes,
// CSRF, idempotency keys, rate limits and the lookup's kept files, grouped by the file they mutate
// (named once, by in). Each From is one line (or the distinctive part of
// one) of that file.
var mutants = slices.Concat(
	// Merkle proofs (RFC 9162).
	in("shared/merkle/merkle.go", []mutant{
		{Name: "merkle/inclusion-root", From: "\tif got != root {\n\t\treturn &RootMismatchError{Computed: got, Expected: root}",
			To:     "\tif false && got != root {\n\t\treturn &RootMismatchError{Computed: got, Expected: root}",
			Breaks: "an inclusion proof leading to another root verifies"},
		{Name: "merkle/index-in-tree", From: "\tif index >= size {", To: "\tif index > size {",
			Breaks: "a leaf index equal to the tree size is accepted"},
		{Name: "merkle/proof-too-short", From: "\tif sn != 0 {\n\t\treturn Hash{}, fmt.Errorf(\"%w: proof of %d hashes too short",
			To:     "\tif false {\n\t\treturn Hash{}, fmt.Errorf(\"%w: proof of %d hashes too short",
			Breaks: "a truncated audit path yields a root"},
		{Name: "merkle/consistency-equal-roots", From: "\t\tif root1 != root2 {", To: "\t\tif false {",
			Breaks: "two different trees of one size count as consistent"},
	}),

	// Anchoring proofs: the origin's check of a record's batch on chain.
	in("origin/internal/anchor/proof.go", []mutant{
		{Name: "anchor/calldata-root", From: "\tif got != p.MerkleRoot {", To: "\tif false && got != p.MerkleRoot {", Run: anchorVerifyTests,
			Breaks: "a proof pointing at another batch's transaction verifies"},
		{Name: "anchor/block-hash", From: "|| (p.BlockHash != (Hash{}) && tx.BlockHash != p.BlockHash) {", To: "{", Run: anchorVerifyTests,
			Breaks: "a proof naming another block hash verifies"},
		{Name: "anchor/leaf", From: "\tif p.LeafHash != leaf {", To: "\tif false {", Run: anchorVerifyTests,
			Breaks: "a proof of another record's leaf verifies"},
		{Name: "anchor/merkle-path", From: "merkle.Hash(leaf), path, merkle.Hash(p.MerkleRoot)); err != nil {", To: "merkle.Hash(leaf), path, merkle.Hash(p.MerkleRoot)); false && err != nil {", Run: anchorVerifyTests,
			Breaks: "a tampered audit path verifies"},
		{Name: "anchor/confirmations", From: "\tif conf < minConfirmations {", To: "\tif conf < 1 {", Run: anchorVerifyTests,
			Breaks: "a shallow block counts as anchored"},
	}),

	// Record verification (signature and certificate).
	in("shared/record/record.go", []mutant{
		{Name: "record/signature", From: "if len(s.Signature) != SignatureSize || !verifySignature(r.SignerPublicKey, s.Bytes, s.Signature) {",
			To:     "if len(s.Signature) != SignatureSize {",
			Breaks: "a record with a forged signature verifies"},
	}),
	in("shared/record/ed25519.go", []mutant{
		{Name: "record/ed25519-equation", From: "\treturn bytes.Equal(sig[:32], r.Bytes())", To: "\treturn bytes.Equal(sig[:32], r.Bytes()) || len(sig) == SignatureSize",
			Breaks: "the verifier module's own Ed25519 check accepts any canonical signature"},
	}),
	in("shared/record/cert.go", []mutant{
		{Name: "record/certificate-anchor", From: "\t\tif err := c.Anchor.Verify(c.Signed.LeafHash()); err != nil {", To: "\t\tif err := c.Anchor.Verify(c.Signed.LeafHash()); false && err != nil {",
			Breaks: "a certificate whose anchor is for another record verifies"},
	}),

	// Receipt verification (offline and against the chain).
	in("shared/receipt/receipt.go", []mutant{
		{Name: "receipt/record-id", From: "\tif rec.ID.String() != r.RecordID {", To: "\tif false {",
			Breaks: "a receipt naming another record id verifies"},
		{Name: "receipt/signer-key", From: "\tif !bytes.Equal(rec.SignerPublicKey, d.pub) {", To: "\tif false {",
			Breaks: "a receipt naming another signer key verifies"},
		{Name: "receipt/leaf", From: "\tif leaf != d.leaf {", To: "\tif false {",
			Breaks: "a receipt whose leaf_hash is not its record's verifies"},
		{Name: "receipt/inclusion", From: "leaf, d.path, d.root); err != nil {", To: "leaf, d.path, d.root); false && err != nil {",
			Breaks: "a receipt whose audit path misses its root verifies"},
		{Name: "receipt/key-revoked", From: "\tif r.KeyRevocation != nil && r.KeyRevocation.Decision != wire.KeyDecisionValid {", To: "\tif false {",
			Breaks: "a receipt of a record signed after its key's compromise verifies"},
		{Name: "receipt/chain-id", From: "\tif id != r.ChainID {", To: "\tif false {",
			Breaks: "a receipt is checked against another chain"},
		{Name: "receipt/calldata", From: "\tif !bytes.Equal(tx.Input, want) {", To: "\tif false && !bytes.Equal(tx.Input, want) {",
			Breaks: "a transaction anchoring another root confirms the receipt"},
		{Name: "receipt/block-hash", From: "\tif tx.BlockNumber != r.BlockNumber || tx.BlockHash != d.block {", To: "\tif tx.BlockNumber != r.BlockNumber {",
			Breaks: "a receipt naming another block hash is confirmed"},
		{Name: "receipt/canonical-block", From: "\tif canon != d.block {", To: "\tif false && canon != d.block {",
			Breaks: "a receipt in a reorganised-away block is confirmed"},
	}),

	// Local-signature thresholds (docs/verification.md, "A block matches").
	in("shared/localsig/compare.go", []mutant{
		{Name: "localsig/sign-tolerance-doubled", From: "\tSignTolerance = 0.30", To: "\tSignTolerance = 0.60",
			Breaks: "blocks with 30-60 % disagreeing structure count as unchanged"},
		{Name: "localsig/mean-tolerance-doubled", From: "\tMeanTolerance = 14", To: "\tMeanTolerance = 28",
			Breaks: "block means up to 28 levels off count as unchanged"},
		{Name: "localsig/sign-energy-floor", From: "\tSignMinEnergy = 6.0", To: "\tSignMinEnergy = 12.0",
			Breaks: "structured blocks are not judged by their signs"},
		{Name: "localsig/detail-loss-doubled", From: "\tDetailLoss = 0.8", To: "\tDetailLoss = 1.6",
			Breaks: "a blurred region counts as unchanged"},
		{Name: "localsig/edited-max", From: "\tEditedMax = 0.5", To: "\tEditedMax = 0.9",
			Breaks: "a picture with most blocks changed counts as edited, not another picture"},
		{Name: "localsig/clipped-side-only", From: "\tcase p > 255-2*tol && m < p:", To: "\tcase p > 255-2*tol:",
			Breaks: "bright blocks get twice the tolerance on the unclipped side too"},
		{Name: "localsig/line-reach-doubled", From: "\tLineReach = 3", To: "\tLineReach = 6", Run: localsigFitTests,
			Breaks: "changed blocks 6 columns apart group as one line"},
		{Name: "localsig/line-reach-halved", From: "\tLineReach = 3", To: "\tLineReach = 1", Run: localsigFitTests,
			Breaks: "the words of a line of text no longer group"},
		{Name: "localsig/toe-knee-doubled", From: "\tToeKnee      = 48", To: "\tToeKnee      = 96", Run: localsigFitTests,
			Breaks: "the tone curve bends at 96, not where shadows crush"},
		{Name: "localsig/toe-knee-halved", From: "\tToeKnee      = 48", To: "\tToeKnee      = 24", Run: localsigFitTests,
			Breaks: "the tone curve bends at 24"},
		{Name: "localsig/shoulder-knee-doubled", From: "\tShoulderKnee = 208", To: "\tShoulderKnee = 416", Run: localsigFitTests,
			Breaks: "the tone curve never bends in the highlights"},
		{Name: "localsig/shoulder-knee-halved", From: "\tShoulderKnee = 208", To: "\tShoulderKnee = 104", Run: localsigFitTests,
			Breaks: "the tone curve bends in the mid-tones"},
		{Name: "localsig/knee-blocks-doubled", From: "const KneeBlocks = 8", To: "const KneeBlocks = 16", Run: localsigFitTests,
			Breaks: "a toe of 8 agreeing blocks is not fitted"},
		{Name: "localsig/knee-blocks-halved", From: "const KneeBlocks = 8", To: "const KneeBlocks = 4", Run: localsigFitTests,
			Breaks: "a handful of darkened shadow blocks bends the curve"},
		{Name: "localsig/gamut-ignored", From: "\tccb, ccr := gamutClip(y, pcb, pcr)", To: "\tccb, ccr := pcb, pcr", Run: localsigFitTests,
			Breaks: "a contrast boost that clips strong colours reads as edited"},
		{Name: "localsig/rank-start-off", From: "\t\tif r, ok := rankCurve(xs, ys); ok && ", To: "\t\tif r, ok := rankCurve(xs, ys); false && ok && ", Run: localsigFitTests,
			Breaks: "a gamma on a mostly dark picture reads as edited"},
		{Name: "localsig/flat-ramp-judged", From: "\t\tif noGradients && (k == 0 || k == 3) {", To: "\t\tif false {", Run: localsigFitTests,
			Breaks: "a local tone map's ramp over flat blocks reads as edited"},
		{Name: "localsig/gain-anywhere", From: "\t\t\tif !lineShaped(g, comp) {", To: "\t\t\tif false {", Run: localsigFitTests,
			Breaks: "any group of blocks that gained detail counts as an edit"},
		{Name: "localsig/gain-ignored", From: "\t\t\tif !lineShaped(g, comp) {", To: "\t\t\tif true {", Run: localsigFitTests,
			Breaks: "a thin headline goes unseen"},
		{Name: "localsig/faint-min-halved", From: "\tFaintMin = 0.25", To: "\tFaintMin = 0.125", Run: localsigFloorTests,
			Breaks: "a line of noise over a quiet copy counts as text"},
		{Name: "localsig/faint-min-doubled", From: "\tFaintMin = 0.25", To: "\tFaintMin = 0.5", Run: localsigFloorTests,
			Breaks: "a thin headline goes unseen"},
		{Name: "localsig/faint-floor-halved", From: "\tFaintFloor = 4.0", To: "\tFaintFloor = 2.0", Run: localsigFloorTests,
			Breaks: "a row that a global change left off its fit counts as text"},
		{Name: "localsig/faint-floor-doubled", From: "\tFaintFloor = 4.0", To: "\tFaintFloor = 8.0", Run: localsigFloorTests,
			Breaks: "a thin headline goes unseen"},
		{Name: "localsig/faint-span-shorter", From: "\tFaintSpan = 8", To: "\tFaintSpan = 4", Run: localsigFloorTests,
			Breaks: "a short run of faint blocks counts as a line"},
		{Name: "localsig/faint-span-longer", From: "\tFaintSpan = 8", To: "\tFaintSpan = 16", Run: localsigFloorTests,
			Breaks: "a headline across a third of the picture goes unseen"},
		{Name: "localsig/band-floor-halved", From: "\tBandFloor = 2.0", To: "\tBandFloor = 1.0", Run: localsigFloorTests,
			Breaks: "a run with a column at the floor counts as a band"},
		{Name: "localsig/band-floor-doubled", From: "\tBandFloor = 2.0", To: "\tBandFloor = 4.0", Run: localsigFloorTests,
			Breaks: "a thin headline over texture goes unseen"},
		{Name: "localsig/band-mean-halved", From: "\tBandMean = 3.0", To: "\tBandMean = 1.5", Run: localsigFloorTests,
			Breaks: "a row a global change left evenly off its fit counts as a band"},
		{Name: "localsig/band-mean-doubled", From: "\tBandMean = 3.0", To: "\tBandMean = 6.0", Run: localsigFloorTests,
			Breaks: "a thin headline over texture goes unseen"},
		{Name: "localsig/faint-area-smaller", From: "\tFaintArea = 6", To: "\tFaintArea = 3", Run: localsigFloorTests,
			Breaks: "a few faint blocks anywhere count as an edit"},
		{Name: "localsig/faint-patch-any-shape", From: "len(comp) >= FaintArea && r1 > r0 && c1 > c0 {", To: "len(comp) >= FaintArea && r1 >= r0 && c1 >= c0 {", Run: localsigFloorTests,
			Breaks: "a short row of faint blocks counts as a patch, not judged as a line"},
		{Name: "localsig/faint-area-larger", From: "\tFaintArea = 6", To: "\tFaintArea = 12", Run: localsigFloorTests,
			Breaks: "a recolour of 2 % of a dark region goes unseen"},
		{Name: "localsig/faint-any-rows", From: "r1-r0 <= 1 && c1-c0+1 >= FaintSpan {", To: "r1-r0 >= 0 && c1-c0+1 >= FaintSpan {", Run: localsigFloorTests,
			Breaks: "a band of residuals over several rows counts as a line"},
		{Name: "localsig/floor-quantile-median", From: "\tFloorQuantile = 0.9", To: "\tFloorQuantile = 0.5", Run: localsigFloorTests,
			Breaks: "the floor ignores a global change's spread of residuals"},
		{Name: "localsig/floor-min-halved", From: "\tFloorMin = 32", To: "\tFloorMin = 16", Run: localsigFloorTests,
			Breaks: "a floor is taken from too few blocks"},
		{Name: "localsig/lone-floor-halved", From: "\tLoneFloor = 8.0", To: "\tLoneFloor = 4.0", Run: localsigFloorTests,
			Breaks: "a block a tone change left off its fit stands out"},
		{Name: "localsig/lone-floor-doubled", From: "\tLoneFloor = 8.0", To: "\tLoneFloor = 16.0", Run: localsigFloorTests,
			Breaks: "a recolour of 1 % on a quiet copy is dismissed as a lone group"},
		{Name: "localsig/lone-within-tolerance", From: "\treturn score >= 1 && score >= LoneFloor*floor", To: "\treturn score >= LoneFloor*floor", Run: localsigFloorTests,
			Breaks: "a block within its tolerance keeps a small group changed"},
		{Name: "localsig/curve-never", From: "\tcurved, ok := throughCurve(in, tc)", To: "\tcurved, ok := throughCurve(in, tc)\n\tok = false", Run: localsigFloorTests,
			Breaks: "a gamma on dark saturated colours reads as edited"},
		{Name: "localsig/curve-bend-halved", From: "const CurveBend = 6.0", To: "const CurveBend = 3.0", Run: localsigFloorTests,
			Breaks: "a nearly straight curve is tried through R, G and B"},
		{Name: "localsig/curve-bend-doubled", From: "const CurveBend = 6.0", To: "const CurveBend = 12.0", Run: localsigFloorTests,
			Breaks: "a gamma's bend is not tried through R, G and B"},
		{Name: "localsig/curve-extrapolated", From: "\t\tcase v < lo:\n\t\t\treturn tlo * v / lo", To: "\t\tcase false:\n\t\t\treturn tlo * v / lo", Run: localsigFloorTests,
			Breaks: "a colour's dark channel follows the fitted polynomial's extrapolation"},
		{Name: "localsig/detail-slope-ignored", From: "\t\t\tdt[j] = tc.detailChange(xs[j])", To: "\t\t\tdt[j] = 0", Run: localsigClipTests,
			Breaks: "a gamma's lifted shadows gain detail the curve explains, and read as edited"},
		{Name: "localsig/detail-slope-only", From: "\treturn max(r, o), min(r, o), signed * max(math.Exp2(dMed+dt), math.Exp2(dMed0))", To: "\t_ = o\n\treturn r, r, signed * math.Exp2(dMed+dt)", Run: localsigClipTests,
			Breaks: "the slope of a knee fitted on a few means makes flat highlights read as gaining detail"},
		{Name: "localsig/detail-median-only", From: "\treturn max(r, o), min(r, o), signed * max(math.Exp2(dMed+dt), math.Exp2(dMed0))", To: "\t_ = r\n\treturn o, o, signed * math.Exp2(dMed0)", Run: localsigClipTests,
			Breaks: "a gamma's lifted shadows gain detail the curve explains, and read as edited"},
		{Name: "localsig/slope-range-wide", From: "const SlopeRange = 2.0", To: "const SlopeRange = 4.0", Run: localsigClipTests,
			Breaks: "a steep curve explains a block's detail quadrupling"},
		{Name: "localsig/slope-range-narrow", From: "const SlopeRange = 2.0", To: "const SlopeRange = 1.5", Run: localsigClipTests,
			Breaks: "a gamma's steep shadows explain too little of their gain of detail"},
		{Name: "localsig/shortfall-never", From: "\t\t\tif d > tol {\n\t\t\t\tscb, scr :=", To: "\t\t\tif false {\n\t\t\t\tscb, scr :=", Run: localsigClipTests,
			Breaks: "a boosted saturated block whose pixels clip reads as recoloured"},
		{Name: "localsig/shortfall-any-hue", From: "\treturn max(math.Abs(cb-scb-t*dx), math.Abs(cr-scr-t*dy))", To: "\treturn math.Abs(cb-scb-t*dx)", Run: localsigClipTests,
			Breaks: "a boosted block may change its hue"},
		{Name: "localsig/boost-min-halved", From: "const BoostMin = ChromaTolerance / 2", To: "const BoostMin = ChromaTolerance / 4", Run: localsigClipTests,
			Breaks: "a copy the fit leaves unchanged qualifies as boosted by noise"},
		{Name: "localsig/boost-min-doubled", From: "const BoostMin = ChromaTolerance / 2", To: "const BoostMin = ChromaTolerance", Run: localsigClipTests,
			Breaks: "a moderate boost's clipping is not explained"},
		{Name: "localsig/clip-reach-halved", From: "const ClipReach = 3.0", To: "const ClipReach = 1.5", Run: localsigClipTests,
			Breaks: "a textured block's clipped pixels are not seen"},
		{Name: "localsig/clip-reach-doubled", From: "const ClipReach = 3.0", To: "const ClipReach = 6.0", Run: localsigClipTests,
			Breaks: "blocks far from the gamut's edge count as clipping"},
		{Name: "localsig/gamut-mean-never", From: "\t\t\tpm = gamutMean(q.f.mean, pred, pred-tc.e*sats[j], pcb, pcr)", To: "\t\t\tpm = pred", Run: localsigClipTests,
			Breaks: "a saturation boost that clips a strong red reads as an edit of its mean"},
		{Name: "localsig/gamut-mean-bare-always", From: "; math.Abs(yb-bare) > 1 {", To: "; true {", Run: localsigClipTests,
			Breaks: "every block's mean may move by the fit's saturation term"},
		{Name: "localsig/pixel-clip-never", From: "\t\t\tpixelClip = boosted(", To: "\t\t\tpixelClip = false && boosted(", Run: localsigClipTests,
			Breaks: "a clipped channel's lost texture reads as a blur"},
		{Name: "localsig/pixel-clip-unboosted", From: "\t\t\tpixelClip = boosted(scb, scr, pcb, pcr) && ", To: "\t\t\t_, _ = scb, scr\n\t\t\tpixelClip = ", Run: localsigClipTests,
			Breaks: "a saturated block's loss of detail is never judged, even unedited"},
		{Name: "localsig/placed-never",
			From: "agreement(r2) > agreement(r) {", To: "false && agreement(r2) > agreement(r) {", Run: localsigEdgeTests,
			Breaks: "a picture in a page is read where the decoder's scale puts it, its outer blocks reading the page"},
		{Name: "localsig/edge-search-narrow",
			From: "\tEdgeSearch = 3", To: "\tEdgeSearch = 1", Run: localsigEdgeTests,
			Breaks: "an edge 1.2 probe pixels off is not found"},
		{Name: "localsig/edge-search-wide",
			From: "\tEdgeSearch = 3", To: "\tEdgeSearch = 6", Run: localsigEdgeTests,
			Breaks: "the edge search reaches text beside the picture"},
		{Name: "localsig/edge-scale-tight",
			From: "\tEdgeScale = 0.03", To: "\tEdgeScale = 0.003", Run: localsigEdgeTests,
			Breaks: "a 1 % scale error is never corrected"},
		{Name: "localsig/edge-contrast-high",
			From: "\tEdgeContrast = 4.0", To: "\tEdgeContrast = 40.0", Run: localsigEdgeTests,
			Breaks: "a light picture's edge is not found"},
		{Name: "localsig/edge-contrast-low",
			From: "\tEdgeContrast = 4.0", To: "\tEdgeContrast = 2.0", Run: localsigEdgeTests,
			Breaks: "a near-white picture's edge is placed by noise"},
		{Name: "localsig/edge-whole-line",
			From: "\t\tc := min(max(num/den, 0), 1)", To: "\t\tc := 1.0", Run: localsigEdgeTests,
			Breaks: "a partly covered line counts as wholly covered"},
		{Name: "localsig/flat-never",
			From: "\tif unsure && flat(g) {", To: "\tif unsure && false {", Run: localsigFlatTests,
			Breaks: "a flat signed picture inside a page is never vouched for"},
		{Name: "localsig/flat-any-tone",
			From: "\t\tunsure = median(dm) > MeanTolerance || median(dc) > ChromaTolerance", To: "\t\tunsure = false", Run: localsigFlatTests,
			Breaks: "a flat field of another tone or colour passes for a flat signed picture"},
		{Name: "localsig/flat-any-colour",
			From: "\t\tunsure = median(dm) > MeanTolerance || median(dc) > ChromaTolerance", To: "\t\tunsure = median(dm) > MeanTolerance", Run: localsigFlatTests,
			Breaks: "a flat field of another colour passes for a flat signed picture"},
		{Name: "localsig/flat-detail-doubled",
			From: "\t\tif detailOf(b.Detail) >= 2*DetailMin ||", To: "\t\tif detailOf(b.Detail) >= 4*DetailMin ||", Run: localsigFlatTests,
			Breaks: "a picture with detailed blocks counts as flat"},
		{Name: "localsig/flat-detail-halved",
			From: "\t\tif detailOf(b.Detail) >= 2*DetailMin ||", To: "\t\tif detailOf(b.Detail) >= DetailMin ||", Run: localsigFlatTests,
			Breaks: "faint texture makes a flat picture count as structured"},
		{Name: "localsig/flat-mean-doubled",
			From: "math.Abs(ms[i]-mm) > MeanTolerance ||", To: "math.Abs(ms[i]-mm) > 2*MeanTolerance ||", Run: localsigFlatTests,
			Breaks: "a picture with contrasting blocks counts as flat"},
		{Name: "localsig/flat-chroma-doubled",
			From: "math.Abs(cbs[i]-mcb) > ChromaTolerance ||", To: "math.Abs(cbs[i]-mcb) > 2*ChromaTolerance ||", Run: localsigFlatTests,
			Breaks: "a picture with coloured blocks counts as flat"},
		{Name: "localsig/flat-count",
			From: "\t\t\tif n >= ContainedMinStructured {\n\t\t\t\treturn false", To: "\t\t\tif n > ContainedMinStructured {\n\t\t\t\treturn false", Run: localsigFlatTests,
			Breaks: "one block more than allowed stands out in a flat picture"},
	}),

	// Verdict thresholds and rules.
	in("shared/verdict/verdict.go", []mutant{
		{Name: "verdict/phash-near-doubled", From: "\te.near = e.dist <= near", To: "\te.near = e.dist <= 2*near",
			Breaks: "perceptual hashes twice as far count as near"},
		{Name: "verdict/revoked-not-authentic", From: "\tif e.c.Revoked || e.anchorErr != nil {\n\t\tr.Authentic, pct = false, 0", To: "\tif e.anchorErr != nil {\n\t\tr.Authentic, pct = false, 0",
			Breaks: "a revoked record still answers authentic"},
		{Name: "verdict/bad-anchor-not-authentic", From: "\tif e.c.Revoked || e.anchorErr != nil {\n\t\tr.Authentic, pct = false, 0", To: "\tif e.c.Revoked {\n\t\tr.Authentic, pct = false, 0",
			Breaks: "a record whose anchor proof fails still answers authentic"},
		{Name: "verdict/watermark-alone-is-signed", From: "\tcase shaEq || (wmEq && near):", To: "\tcase shaEq || wmEq:",
			Breaks: "a transplanted watermark ranks as signed evidence"},
	}),
	in("shared/phash/phash.go", []mutant{
		{Name: "phash/near-distance-doubled", From: "\tNearDistance256 = 64", To: "\tNearDistance256 = 128",
			Breaks: "unrelated pictures (median distance 128) count as near"},
	}),

	// Webhook SSRF guard.
	in("origin/internal/webhooks/ssrf.go", []mutant{
		{Name: "ssrf/loopback", From: "\tcase ip.IsLoopback():", To: "\tcase false:", Run: ssrfTests,
			Breaks: "webhooks may target loopback"},
		{Name: "ssrf/private", From: "\tcase ip.IsPrivate():", To: "\tcase false:", Run: ssrfTests,
			Breaks: "webhooks may target private networks"},
		{Name: "ssrf/link-local", From: "\tcase ip.IsLinkLocalUnicast():", To: "\tcase false:", Run: ssrfTests,
			Breaks: "webhooks may target link-local (cloud metadata 169.254.169.254)"},
		{Name: "ssrf/ipv4-mapped", From: "\tip = ip.Unmap()\n\tswitch {", To: "\tswitch {", Run: ssrfTests,
			Breaks: "an IPv4-mapped IPv6 address bypasses the IPv4 classes"},
		{Name: "ssrf/cgnat", From: "\t{netip.MustParsePrefix(\"100.64.0.0/10\"), \"cgnat\"},\n", To: "", Run: ssrfTests,
			Breaks: "webhooks may target carrier-grade NAT space"},
		{Name: "ssrf/ports", From: "\tif port != 80 && port != 443 && !slices.Contains(g.ports, port) {", To: "\tif false {", Run: ssrfTests,
			Breaks: "webhooks may target any port of a public host"},
		{Name: "ssrf/dial-time", From: "\treturn g.CheckAddr(ap.Addr(), ap.Port())", To: "\t_ = ap; return nil", Run: ssrfTests,
			Breaks: "the address dialled is not re-checked (DNS rebinding)"},
	}),

	// Authentication.
	in("origin/internal/httpapi/auth.go", []mutant{
		{Name: "auth/api-key-only-refuses-jwt", From: "\tif mode == APIKeyOnly || mode == APIKeyOrSession {", To: "\tif mode == APIKeyOnly {",
			Breaks: "a Bearer JWT reaches content records and webhooks"},
		{Name: "auth/api-key-only-refuses-cookie", From: "\tif mode == APIKeyOnly {", To: "\tif false {",
			Breaks: "the session cookie reaches sign-batch"},
		{Name: "auth/jwt-only-refuses-key", From: "\t\tif mode == JWTOnly {", To: "\t\tif false {",
			Breaks: "an API key reaches key management"},
	}),
	in("origin/internal/keys/apikeys.go", []mutant{
		{Name: "keys/revoked-api-key", From: "!= 1 || k.RevokedAt != nil {", To: "!= 1 {",
			Breaks: "a revoked API key still authenticates"},
	}),
	in("origin/internal/accounts/accounts.go", []mutant{
		{Name: "accounts/token-before-reset", From: "claims.IssuedAt.Unix() <= rec.CredentialsChangedAt.Unix()", To: "claims.IssuedAt.Unix() < rec.CredentialsChangedAt.Unix()",
			Run:    accountsTokenTests,
			Breaks: "a JWT issued in the second of a password reset stays valid"},
	}),
	in("origin/internal/accounts/token.go", []mutant{
		{Name: "accounts/alg-pinned", From: "\t\t\tjwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}),\n", To: "",
			Run:        accountsTokenTests,
			Breaks:     "tokens are accepted whatever their alg header says",
			Equivalent: "the key function refuses every method but Ed25519 as well, so either guard alone keeps other algorithms out (TestTokenIssueAndAuthenticate: alg none, HS256 keyed with the public key)"},
	}),

	// Scopes.
	in("origin/internal/httpapi/auth.go", []mutant{
		{Name: "scope/api-key-scopes", From: "\treturn p.Kind == AuthJWT || slices.Contains(p.Scopes, scope)", To: "\treturn p.Kind == AuthJWT || slices.Contains(p.Scopes, scope) || len(p.Scopes) > 0",
			Breaks: "an API key acts outside its scopes"},
	}),
	in("origin/internal/httpapi/api.go", []mutant{
		{Name: "scope/route-scope-checked", From: "\t\tif rt.Scope != \"\" {", To: "\t\tif false {",
			Breaks: "routes do not check their scope"},
	}),
	in("origin/internal/httpapi/auth.go", []mutant{
		{Name: "scope/session-has-every-scope", From: "\treturn p.Kind == AuthJWT || slices.Contains(p.Scopes, scope)", To: "\treturn slices.Contains(p.Scopes, scope)",
			Breaks: "the owner's session loses the scopes it owns (the web app breaks)"},
	}),

	// CSRF.
	in("origin/internal/httpapi/session.go", []mutant{
		{Name: "csrf/compare", From: "\treturn jwt != \"\" && subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1", To: "\treturn jwt != \"\" && subtle.ConstantTimeCompare([]byte(want), []byte(got)) >= 0",
			Breaks: "any CSRF token is accepted"},
		{Name: "csrf/no-session", From: "\treturn jwt != \"\" && subtle.ConstantTimeCompare", To: "\treturn subtle.ConstantTimeCompare",
			Breaks: "the token of an empty session is accepted"},
	}),
	in("origin/internal/httpapi/auth.go", []mutant{
		{Name: "csrf/cookie-writes-checked", From: "\tif !safeMethod(ctx.Method()) && !CheckCSRF(", To: "\tif false && !CheckCSRF(",
			Breaks: "cookie-authenticated writes need no CSRF token"},
	}),
	in("origin/internal/httpapi/session.go", []mutant{
		{Name: "csrf/post-is-unsafe", From: "\tcase fasthttp.MethodGet, fasthttp.MethodHead, fasthttp.MethodOptions:", To: "\tcase fasthttp.MethodGet, fasthttp.MethodHead, fasthttp.MethodOptions, fasthttp.MethodPost:",
			Breaks: "POST with the cookie needs no CSRF token"},
	}),
	in("origin/internal/webapp/pages.go", []mutant{
		{Name: "csrf/webapp-logout", From: "\tif tok != \"\" && (!sameOrigin(ctx) || !httpapi.CheckCSRF(tok, formValue(ctx, httpapi.CSRFField))) {", To: "\tif tok != \"\" && !sameOrigin(ctx) {",
			Breaks: "a same-site page can log the visitor out without the token"},
		{Name: "csrf/webapp-same-origin", From: "\treturn err == nil && u.Host == string(ctx.Host())", To: "\treturn err == nil && (u.Host == string(ctx.Host()) || u.Host != \"\")",
			Breaks: "a form posted from another origin is accepted"},
	}),

	// Idempotency keys.
	in("origin/internal/httpapi/idempotency.go", []mutant{
		{Name: "idem/per-account", From: "\tcred := \"acct:\" + p.AccountID", To: "\tcred := \"acct:\"",
			Breaks: "accounts share Idempotency-Key space (one replays another's response)"},
		{Name: "idem/per-api-key", From: "\t\tcred = \"key:\" + p.APIKeyID", To: "\t\tcred = \"key:\"",
			Breaks: "all API keys share Idempotency-Key space"},
		{Name: "idem/fingerprint", From: "\t\tif requestFingerprint(ctx, rt.Path, digest) != prev.Fingerprint {", To: "\t\tif false && requestFingerprint(ctx, rt.Path, digest) != prev.Fingerprint {",
			Breaks: "a different request under a used key gets the old response"},
		{Name: "idem/only-success-stored", From: "\tif status < 200 || status > 299 {", To: "\tif status < 200 {",
			Breaks: "a failed request is replayed instead of run again"},
		{Name: "idem/ttl", From: "\tif i.now().Sub(e.CreatedAt) >= IdempotencyTTL {", To: "\tif false {",
			Breaks: "keys are replayed forever"},
	}),

	// Admin listeners: the Host check against DNS rebinding and the start-up
	// refusal of an admin address off loopback without a token.
	in("internal/adminguard/adminguard.go", []mutant{
		{Name: "adminguard/foreign-host", From: "\treturn g.hosts[h] || loopbackName(h)", To: "\treturn true",
			Breaks: "a rebound name (attacker.example → 127.0.0.1) reaches the admin endpoints"},
		{Name: "adminguard/listen-on-loopback", From: "\treturn err == nil && loopbackName(strings.ToLower(host))", To: "\treturn err == nil && (host == \"\" || loopbackName(strings.ToLower(host)))",
			Breaks: "an admin listener on every interface (:8091) counts as loopback (no token needed)"},
		{Name: "adminguard/loopback-address", From: "\treturn err == nil && a.Unmap().IsLoopback()", To: "\treturn err == nil || a.IsValid()",
			Breaks: "any IP address counts as loopback"},
	}),

	// Rate limits.
	in("internal/ratelimit/ratelimit.go", []mutant{
		{Name: "ratelimit/quota", From: "\tif ok && lg.n >= quota {", To: "\tif ok && lg.n > quota {",
			Breaks: "one request more than the quota passes"},
		{Name: "ratelimit/window", From: "\tfor k.n > 0 && k.oldest()+window <= now {", To: "\tfor k.n > 0 && k.oldest()+window/2 <= now {",
			Breaks: "requests leave the window early (2× the quota per window)"},
	}),
	in("origin/internal/httpapi/api.go", []mutant{
		{Name: "ratelimit/refusal-applied", From: "\tif d.Allowed {\n\t\treturn nil\n\t}", To: "\tif true {\n\t\treturn nil\n\t}",
			Breaks: "a refused request is served"},
		{Name: "ratelimit/per-api-key", From: "\t\t\t\tkey = \"key:\" + p.APIKeyID", To: "\t\t\t\tkey = \"key:\"",
			Breaks: "all API keys share one sign quota"},
		{Name: "ratelimit/per-ip", From: "\tif rt.Limiter != nil && rt.LimitBy == ByIP {", To: "\tif false {",
			Breaks: "per-IP limits (verify, register) are not applied"},
	}),

	// Kept signed files: the lookup's C2PA member is read only from the
	// very bytes the record names.
	in("origin/internal/content/lookup_c2pa.go", []mutant{
		{Name: "lookup/kept-file-hash", From: "\tif sha256.Sum256(file) != sum {", To: "\tif false && sha256.Sum256(file) != sum {",
			Breaks: "a kept file rewritten on disk lends its manifest to the record's answer", Run: "TestLookupC2PA"},
	}),
)

// in gives each of ms the file it mutates.
func in(file string, ms []mutant) []mutant {
	for i := range ms {
		ms[i].File = file
	}
	return ms
}
