// Package client is the Go SDK of the Provenant origin API (docs/api.md,
// docs/sdk.md): a typed method per endpoint, with
//
//   - a context on every call;
//   - retries with exponential backoff and full jitter on network errors,
//     429 and 5xx answers, waiting at least what Retry-After asks;
//   - an Idempotency-Key header on every write, one random UUIDv4 per
//     logical call and the same on each of its retries, so a retried sign
//     or register never creates a second record on an origin that honours
//     the header;
//   - streaming multipart uploads: a file is read from disk while it is
//     sent, never held whole in memory, and sent with its Content-Length so
//     the origin can refuse an oversized upload before reading it;
//   - typed errors: every problem+json answer is an [*Error] carrying its
//     stable code, status, detail and field errors (use errors.As); a
//     request that got no answer is a [*NetworkError];
//   - local verification ([Client.VerifyLocal]): the facts are computed on
//     this machine with the same code the origin and the browser widget
//     run, only the facts go to the lookup endpoint, and the candidates'
//     signatures and proofs are checked here before the verdict is
//     computed, so the file never leaves the machine.
package client
