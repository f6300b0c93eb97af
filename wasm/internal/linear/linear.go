// Package linear is the buffer table of a WebAssembly reactor whose host
// passes bytes through linear memory: the host calls alloc, writes its
// input there, calls an export with (ptr, len), reads the packed
// (ptr<<32 | len) result and frees both buffers.
package linear

import "unsafe"

// Table holds the buffers handed to the host: Go's collector does not
// move objects, and keeping them referenced here stops it from collecting
// one the host still reads or writes. An instance is single-threaded, so
// a Table needs no lock.
type Table struct {
	live map[uint32][]byte
}

// New returns an empty table.
func New() *Table { return &Table{live: map[uint32][]byte{}} }

// Keep registers b as live and returns its address in linear memory.
func (t *Table) Keep(b []byte) uint32 {
	if len(b) == 0 {
		b = make([]byte, 1)[:0:1]
	}
	p := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	t.live[p] = b
	return p
}

// Alloc keeps a new buffer of size bytes and returns its address.
func (t *Table) Alloc(size uint32) uint32 { return t.Keep(make([]byte, size)) }

// Free forgets the buffer at ptr.
func (t *Table) Free(ptr uint32) { delete(t.live, ptr) }

// Input returns the live buffer at ptr, truncated to n bytes, or nil.
func (t *Table) Input(ptr, n uint32) []byte {
	b, ok := t.live[ptr]
	if !ok || int(n) > cap(b) {
		return nil
	}
	return b[:n]
}

// Output keeps b live and returns it packed as ptr<<32 | len.
func (t *Table) Output(b []byte) uint64 {
	return uint64(t.Keep(b))<<32 | uint64(len(b))
}
