package blobs

// RunStoreTests runs the Store conformance tests, for the external test
// package (whose S3 server helper imports this package).
var RunStoreTests = testStore

// SumOf names a blob: the hex SHA-256 of its bytes.
var SumOf = sumOf
