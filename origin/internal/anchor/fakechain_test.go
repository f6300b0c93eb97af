package anchor_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"sync"

	"github.com/provenant/provenant/origin/internal/anchor"
)

// fakeChain is an in-memory chain with fault injection. A "raw tx" is the
// JSON of fakeTx; its hash is SHA-256 of the raw bytes.
type fakeChain struct {
	mu       sync.Mutex
	blocks   []fakeBlock // blocks[0] is genesis
	pool     map[anchor.Hash]fakeTx
	mined    map[anchor.Hash]fakeTx
	reverted map[anchor.Hash]bool // txs that revert when mined
	nonce    uint64               // sender's next nonce on chain
	baseFee  *big.Int
	autoMine bool
	forkSalt int
	// fail[op] > 0 makes the next fail[op] calls of op return errRPC.
	fail map[string]int
	// swallow makes Broadcast accept nothing but report an RPC error.
	swallow bool
	// acceptButFail makes Broadcast take the tx but report an RPC error.
	acceptButFail bool
	// hideReceipts > 0 makes the next hideReceipts Receipt calls say ErrNotIncluded.
	hideReceipts int
	// revertNext makes the next mined tx revert.
	revertNext bool
	finalized  int // finalized block number; -1: no finality
	syncs      int
	broadcasts int
}

type fakeBlock struct {
	hash anchor.Hash
	txs  []anchor.Hash
}

type fakeTx struct {
	Nonce  uint64      `json:"nonce"`
	Root   anchor.Hash `json:"root"`
	Tip    string      `json:"tip"`
	FeeCap string      `json:"fee_cap"`
}

func (t fakeTx) feeCap() *big.Int { v, _ := new(big.Int).SetString(t.FeeCap, 10); return v }
func (t fakeTx) tip() *big.Int    { v, _ := new(big.Int).SetString(t.Tip, 10); return v }

var errRPC = errors.New("fake rpc: connection refused")

func newFakeChain() *fakeChain {
	f := &fakeChain{
		pool:     map[anchor.Hash]fakeTx{},
		mined:    map[anchor.Hash]fakeTx{},
		reverted: map[anchor.Hash]bool{},
		baseFee:  big.NewInt(1000),
		autoMine: true,
		fail:     map[string]int{},
	}
	f.blocks = []fakeBlock{{hash: f.blockHash(0)}}
	return f
}

func (f *fakeChain) blockHash(n int) anchor.Hash {
	return anchor.Hash(sha256.Sum256([]byte(fmt.Sprintf("block %d fork %d", n, f.forkSalt))))
}

func (f *fakeChain) failing(op string) error {
	if f.fail[op] > 0 {
		f.fail[op]--
		return fmt.Errorf("%s: %w", op, errRPC)
	}
	return nil
}

func (f *fakeChain) Network() string { return "fakenet" }
func (f *fakeChain) ChainID() uint64 { return 99 }
func (f *fakeChain) Sender() string  { return "0xfake" }

func (f *fakeChain) Head(context.Context) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("head"); err != nil {
		return 0, err
	}
	return uint64(len(f.blocks) - 1), nil
}

func (f *fakeChain) Finalized(context.Context) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.finalized < 0 {
		return 0, anchor.ErrNoFinality
	}
	return uint64(f.finalized), nil
}

func (f *fakeChain) PendingNonce(context.Context) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("nonce"); err != nil {
		return 0, err
	}
	n := f.nonce
	for {
		found := false
		for _, tx := range f.pool {
			if tx.Nonce == n {
				found = true
			}
		}
		if !found {
			return n, nil
		}
		n++
	}
}

func (f *fakeChain) SuggestFees(context.Context) (anchor.Fees, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("fees"); err != nil {
		return anchor.Fees{}, err
	}
	tip := big.NewInt(10)
	return anchor.Fees{TipCap: tip, FeeCap: new(big.Int).Add(new(big.Int).Mul(f.baseFee, big.NewInt(2)), tip)}, nil
}

func (f *fakeChain) SignRoot(_ context.Context, root anchor.Hash, nonce uint64, fees anchor.Fees) (anchor.SignedTx, error) {
	raw, _ := json.Marshal(fakeTx{Nonce: nonce, Root: root, Tip: fees.TipCap.String(), FeeCap: fees.FeeCap.String()})
	return anchor.SignedTx{Hash: sha256.Sum256(raw), Nonce: nonce, Raw: raw, TipCap: fees.TipCap, FeeCap: fees.FeeCap}, nil
}

func (f *fakeChain) Broadcast(_ context.Context, raw []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.broadcasts++
	if err := f.failing("broadcast"); err != nil {
		return err
	}
	if f.swallow {
		return errRPC
	}
	var tx fakeTx
	if err := json.Unmarshal(raw, &tx); err != nil {
		return err
	}
	h := anchor.Hash(sha256.Sum256(raw))
	if tx.Nonce < f.nonce {
		return fmt.Errorf("fake: %w", anchor.ErrNonceTooLow)
	}
	if _, ok := f.pool[h]; ok {
		return nil // already known
	}
	for oh, o := range f.pool {
		if o.Nonce == tx.Nonce {
			min := func(x *big.Int) *big.Int { y := new(big.Int).Mul(x, big.NewInt(110)); return y.Div(y, big.NewInt(100)) }
			if tx.feeCap().Cmp(min(o.feeCap())) < 0 || tx.tip().Cmp(min(o.tip())) < 0 {
				return fmt.Errorf("fake: replacement: %w", anchor.ErrUnderpriced)
			}
			delete(f.pool, oh)
		}
	}
	f.pool[h] = tx
	if f.autoMine {
		f.mineLocked()
	}
	if f.acceptButFail {
		f.acceptButFail = false
		return errRPC
	}
	return nil
}

// mine mines one block with every executable pool tx whose fee cap covers the base fee.
func (f *fakeChain) mine() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mineLocked()
}

func (f *fakeChain) mineLocked() {
	var hs []anchor.Hash
	for {
		var next *anchor.Hash
		for h, tx := range f.pool {
			if tx.Nonce == f.nonce && tx.feeCap().Cmp(f.baseFee) >= 0 {
				h := h
				next = &h
			}
		}
		if next == nil {
			break
		}
		tx := f.pool[*next]
		delete(f.pool, *next)
		f.mined[*next] = tx
		if f.revertNext {
			f.reverted[*next] = true
			f.revertNext = false
		}
		f.nonce++
		hs = append(hs, *next)
	}
	f.blocks = append(f.blocks, fakeBlock{hash: f.blockHash(len(f.blocks)), txs: hs})
}

// reorg drops the last depth blocks (their txs go back to the pool) and
// mines depth+1 empty blocks on a new fork.
func (f *fakeChain) reorg(depth int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forkSalt++
	cut := len(f.blocks) - depth
	for _, b := range f.blocks[cut:] {
		for _, h := range b.txs {
			tx := f.mined[h]
			delete(f.mined, h)
			f.pool[h] = tx
			f.nonce = min(f.nonce, tx.Nonce)
		}
	}
	f.blocks = f.blocks[:cut]
	for range depth + 1 {
		f.blocks = append(f.blocks, fakeBlock{hash: f.blockHash(len(f.blocks))})
	}
}

func (f *fakeChain) find(h anchor.Hash) (int, bool) {
	for n, b := range f.blocks {
		for _, t := range b.txs {
			if t == h {
				return n, true
			}
		}
	}
	return 0, false
}

func (f *fakeChain) Receipt(_ context.Context, h anchor.Hash) (anchor.Inclusion, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("receipt"); err != nil {
		return anchor.Inclusion{}, err
	}
	n, ok := f.find(h)
	if !ok || f.hideReceipts > 0 {
		f.hideReceipts = max(0, f.hideReceipts-1)
		return anchor.Inclusion{}, anchor.ErrNotIncluded
	}
	return anchor.Inclusion{TxHash: h, BlockNumber: uint64(n), BlockHash: f.blocks[n].hash, Success: !f.reverted[h]}, nil
}

func (f *fakeChain) Transaction(_ context.Context, h anchor.Hash) (anchor.AnchorTx, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failing("tx"); err != nil {
		return anchor.AnchorTx{}, err
	}
	n, ok := f.find(h)
	if !ok {
		return anchor.AnchorTx{}, anchor.ErrNotIncluded
	}
	tx := f.mined[h]
	return anchor.AnchorTx{Hash: h, Data: anchor.Calldata(tx.Root), BlockNumber: uint64(n), BlockHash: f.blocks[n].hash}, nil
}

func (f *fakeChain) Sync(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.syncs++
	return nil
}

// minedRoots returns how many canonical txs carry each root.
func (f *fakeChain) minedRoots() map[anchor.Hash]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[anchor.Hash]int{}
	for _, b := range f.blocks {
		for _, h := range b.txs {
			if !f.reverted[h] {
				out[f.mined[h].Root]++
			}
		}
	}
	return out
}

func (f *fakeChain) set(fn func(f *fakeChain)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

var _ anchor.Chain = (*fakeChain)(nil)

// leafOf makes a deterministic leaf hash for record i.
func leafOf(i int) anchor.Hash {
	var b [9]byte
	binary.BigEndian.PutUint64(b[1:], uint64(i))
	return anchor.Hash(sha256.Sum256(b[:]))
}

func sortedKeys(m map[anchor.Hash]int) []anchor.Hash {
	out := make([]anchor.Hash, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return string(out[i][:]) < string(out[j][:]) })
	return out
}
