// Package videos is what the registry keeps and reads of signed videos
// beside their records: each video's fingerprint and the frame index a
// clip finds its video through (Index, written in the record's
// transaction), how a clip aligns on a stored video (Index.Align), the
// pipeline that turns an upload into a signed output (Mark), and how a
// video's verdict reads (Wording).
//
// It sits below content, which signs and verifies video records through
// it: it never reads records, accounts or keys (the one record fact it
// needs, a matched record's perceptual hash, is asked for through a
// callback), and knows nothing of HTTP.
package videos
