package chainsim

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// MaxBundleTransactions is the most transactions a bundle may hold.
const MaxBundleTransactions = 5

// inflightLookbackSlots is how long (5 minutes of slots) in-flight bundle
// statuses remember a bundle.
const inflightLookbackSlots = 750

// ErrInvalidBundle is wrapped by every error about a bundle the block
// engine refuses outright.
var ErrInvalidBundle = errors.New("invalid bundle")

// BundleState is a bundle's in-flight status.
type BundleState string

// Bundle states, as getInflightBundleStatuses reports them.
const (
	// BundlePending is accepted and not landed (yet).
	BundlePending BundleState = "Pending"
	// BundleLanded landed: every transaction of it, in order, in one slot.
	BundleLanded BundleState = "Landed"
	// BundleFailed was executed and dropped: a transaction failed or the
	// tip was too small. Nothing of it landed.
	BundleFailed BundleState = "Failed"
	// BundleInvalid is unknown, or older than the 5-minute lookback.
	BundleInvalid BundleState = "Invalid"
)

// BundleStatus is what the block engine knows of a bundle.
type BundleStatus struct {
	// ID is the bundle id.
	ID string
	// State is the bundle's in-flight state.
	State BundleState
	// Slot and BlockHeight are where it landed (Landed only).
	Slot        uint64
	BlockHeight uint64
	// Signatures are the first signatures of its transactions, in order.
	Signatures []solana.Signature
	// Reason says why a Failed bundle was dropped.
	Reason string
}

// bundleRecord is a bundle the engine accepted. Guarded by the chain's mu.
type bundleRecord struct {
	BundleStatus
	txs      []*svm.Txn
	accepted uint64    // slot of acceptance
	sent     time.Time // time of acceptance
	dropped  bool      // accepted by a never-land fault: it will never run
}

// BundleID returns the id Jito gives a bundle: the hex sha256 of its
// transactions' first signatures in base58, joined by commas.
func BundleID(sigs []solana.Signature) string {
	parts := make([]string, len(sigs))
	for i, s := range sigs {
		parts[i] = s.String()
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, ",")))
	return hex.EncodeToString(sum[:])
}

// BlockEngine is the chain's Jito block engine: the bundles it accepted
// and the tip accounts they pay. Its bundles are guarded by the chain's mu.
type BlockEngine struct {
	c       *Chain
	tips    []solana.PublicKey
	minTip  uint64
	bundles map[string]*bundleRecord
}

// newBlockEngine returns the block engine of c, asking minTip of a bundle.
func newBlockEngine(c *Chain, minTip uint64) *BlockEngine {
	return &BlockEngine{c: c, tips: tipAccounts(), minTip: minTip, bundles: map[string]*bundleRecord{}}
}

// Send gives a bundle of 1 to 5 signed wire transactions to the block
// engine and returns its id. It runs at the next slot's block, in order and
// atomically: all land, or none (a failing transaction, or less than the
// minimum tip paid to the tip accounts, drops it all). Sending a pending or
// landed bundle again only returns its id.
func (e *BlockEngine) Send(raws [][]byte) (string, error) {
	return e.send(raws, false)
}

// send accepts a bundle; a dropped one is accepted but never runs.
func (e *BlockEngine) send(raws [][]byte, drop bool) (string, error) {
	txs, err := parseBundle(raws)
	if err != nil {
		return "", err
	}
	sigs := make([]solana.Signature, len(txs))
	for i, t := range txs {
		sigs[i] = t.ID()
	}
	id := BundleID(sigs)
	c := e.c
	c.lock()
	defer c.unlock()
	if b, ok := e.bundles[id]; ok && (b.State == BundleLanded || b.State == BundlePending && !b.dropped) {
		return id, nil
	}
	seen := c.Ledger.seen
	b := &bundleRecord{
		BundleStatus: BundleStatus{ID: id, State: BundlePending, Signatures: sigs},
		txs:          txs,
		accepted:     seen,
		sent:         c.Ledger.clock.Now(),
		dropped:      drop,
	}
	e.bundles[id] = b
	if drop {
		c.log.Debug("bundle dropped by fault", "bundle", id)
		return id, nil
	}
	c.leader.queue = append(c.leader.queue, &pendingItem{target: seen + 1, bundle: b})
	return id, nil
}

// parseBundle decodes and verifies a bundle's transactions.
func parseBundle(raws [][]byte) ([]*svm.Txn, error) {
	if len(raws) == 0 || len(raws) > MaxBundleTransactions {
		return nil, fmt.Errorf("%w: %d transactions, want 1 to %d", ErrInvalidBundle, len(raws), MaxBundleTransactions)
	}
	txs := make([]*svm.Txn, len(raws))
	seen := map[solana.Signature]bool{}
	for i, raw := range raws {
		t, err := svm.ParseTx(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: transaction %d: %w", ErrInvalidBundle, i, err)
		}
		if err := t.VerifySignatures(); err != nil {
			return nil, fmt.Errorf("%w: transaction %d: %w", ErrInvalidBundle, i, err)
		}
		if seen[t.ID()] {
			return nil, fmt.Errorf("%w: transaction %d is a duplicate", ErrInvalidBundle, i)
		}
		seen[t.ID()] = true
		txs[i] = t
	}
	return txs, nil
}

// fail marks a bundle as dropped at execution.
func (e *BlockEngine) fail(b *bundleRecord, reason string) {
	b.State, b.Reason = BundleFailed, reason
	e.c.log.Debug("bundle failed", "bundle", b.ID, "reason", reason)
}

// tipLamports returns the total balance of the tip accounts in st.
func (e *BlockEngine) tipLamports(st svm.Store) uint64 {
	total := uint64(0)
	for _, k := range e.tips {
		total += svm.LamportsOf(st, k)
	}
	return total
}

// Status returns what the block engine knows of a bundle; unknown and
// expired bundles are Invalid.
func (e *BlockEngine) Status(id string) BundleStatus {
	return read(e.c, func() BundleStatus { return e.status(id) })
}

// status is Status with the chain's mu held.
func (e *BlockEngine) status(id string) BundleStatus {
	b, ok := e.bundles[id]
	if !ok || b.accepted+inflightLookbackSlots < e.c.Ledger.seen {
		return BundleStatus{ID: id, State: BundleInvalid}
	}
	st := b.BundleStatus
	st.Signatures = append([]solana.Signature(nil), st.Signatures...)
	return st
}

// TipAccounts returns the 8 Jito tip accounts of the simulator.
func (e *BlockEngine) TipAccounts() []solana.PublicKey {
	return append([]solana.PublicKey(nil), e.tips...)
}

// MinTip returns the smallest tip a bundle must pay, in lamports.
func (e *BlockEngine) MinTip() uint64 { return e.minTip }

// tipAccounts derives the simulator's fixed tip accounts.
func tipAccounts() []solana.PublicKey {
	keys := make([]solana.PublicKey, 8)
	for i := range keys {
		keys[i] = sha256.Sum256([]byte(fmt.Sprintf("chainsim jito tip account %d", i)))
	}
	return keys
}
