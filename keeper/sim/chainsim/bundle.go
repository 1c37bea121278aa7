package chainsim

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

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

// bundleRecord is a bundle the engine accepted. Guarded by Chain.mu.
type bundleRecord struct {
	BundleStatus
	txs      []*svm.Txn
	accepted uint64 // slot of acceptance
	dropped  bool   // accepted by a never-land fault: it will never run
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

// SendBundle gives a bundle of 1 to 5 signed wire transactions to the
// block engine and returns its id. It runs at the next slot's block, in
// order and atomically: all land, or none (a failing transaction, or less
// than the minimum tip paid to the tip accounts, drops it all). Sending a
// pending or landed bundle again only returns its id.
func (c *Chain) SendBundle(raws [][]byte) (string, error) {
	return c.sendBundle(raws, false)
}

// sendBundle accepts a bundle; a dropped one is accepted but never runs.
func (c *Chain) sendBundle(raws [][]byte, drop bool) (string, error) {
	txs, err := parseBundle(raws)
	if err != nil {
		return "", err
	}
	sigs := make([]solana.Signature, len(txs))
	for i, t := range txs {
		sigs[i] = t.ID()
	}
	id := BundleID(sigs)
	c.lock()
	defer c.unlock()
	if b, ok := c.bundles[id]; ok && (b.State == BundleLanded || b.State == BundlePending && !b.dropped) {
		return id, nil
	}
	b := &bundleRecord{
		BundleStatus: BundleStatus{ID: id, State: BundlePending, Signatures: sigs},
		txs:          txs,
		accepted:     c.seen,
		dropped:      drop,
	}
	c.bundles[id] = b
	if drop {
		c.log.Debug("bundle dropped by fault", "bundle", id)
		return id, nil
	}
	c.queue = append(c.queue, &pendingItem{target: c.seen + 1, bundle: b})
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

// landBundleLocked runs a bundle in the block at pos, committing it only if
// every transaction succeeds and the tip is paid. The caller holds c.mu.
func (c *Chain) landBundleLocked(b *bundleRecord, pos svm.BlockPos) {
	bov := svm.NewOverlay(c.accounts)
	before := c.tipLamports(bov)
	results := make([]*execResult, len(b.txs))
	for i, t := range b.txs {
		res, terr := c.run(bov, t, runOpts{pos: pos, hashHeight: pos.Height})
		if terr == nil && res.err != nil {
			terr = res.err
		}
		if terr != nil {
			c.failBundle(b, fmt.Sprintf("transaction %d (%s): %v", i, t.ID(), terr))
			return
		}
		results[i] = res
	}
	after := c.tipLamports(bov)
	if after < before || after-before < c.minTip {
		c.failBundle(b, fmt.Sprintf("tip of %d lamports is below the minimum of %d", after-min(after, before), c.minTip))
		return
	}
	bov.Commit()
	for i, t := range b.txs {
		c.recordLocked(t, pos, results[i], b.ID)
	}
	b.State, b.Slot, b.BlockHeight = BundleLanded, pos.Slot, pos.Height
}

// failBundle marks a bundle as dropped at execution.
func (c *Chain) failBundle(b *bundleRecord, reason string) {
	b.State, b.Reason = BundleFailed, reason
	c.log.Debug("bundle failed", "bundle", b.ID, "reason", reason)
}

// tipLamports returns the total balance of the tip accounts in st.
func (c *Chain) tipLamports(st svm.Store) uint64 {
	total := uint64(0)
	for _, k := range c.tips {
		total += svm.LamportsOf(st, k)
	}
	return total
}

// BundleStatus returns what the block engine knows of a bundle; unknown and
// expired bundles are Invalid.
func (c *Chain) BundleStatus(id string) BundleStatus {
	c.lock()
	defer c.unlock()
	return c.bundleStatusLocked(id)
}

// bundleStatusLocked is BundleStatus with c.mu held.
func (c *Chain) bundleStatusLocked(id string) BundleStatus {
	b, ok := c.bundles[id]
	if !ok || b.accepted+inflightLookbackSlots < c.seen {
		return BundleStatus{ID: id, State: BundleInvalid}
	}
	st := b.BundleStatus
	st.Signatures = append([]solana.Signature(nil), st.Signatures...)
	return st
}

// TipAccounts returns the 8 Jito tip accounts of the simulator.
func (c *Chain) TipAccounts() []solana.PublicKey {
	return append([]solana.PublicKey(nil), c.tips...)
}

// MinTip returns the smallest tip a bundle must pay, in lamports.
func (c *Chain) MinTip() uint64 { return c.minTip }

// tipAccounts derives the simulator's fixed tip accounts.
func tipAccounts() []solana.PublicKey {
	keys := make([]solana.PublicKey, 8)
	for i := range keys {
		keys[i] = sha256.Sum256([]byte(fmt.Sprintf("chainsim jito tip account %d", i)))
	}
	return keys
}
