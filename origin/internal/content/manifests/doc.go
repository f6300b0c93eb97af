// Package manifests is the origin's side of C2PA (docs/c2pa.md): it
// writes the manifest of a JPEG or PNG the service signs (Embed), keeps
// each manifest store with the record it belongs to (Put, inside the
// record's transaction), and resolves manifests for the C2PA Soft Binding
// Resolution API: by id, by one of our soft bindings, or by a file's
// content (Resolver).
//
// It guarantees that a manifest an upload carried is either kept as the
// parent ingredient of ours or refused (ErrUnreadable), never dropped
// without a word; that no store larger than a database value is written;
// and that resolution names only manifests of active records. It knows
// nothing of how records are found: the candidate search is content's,
// passed in as Records.
package manifests
