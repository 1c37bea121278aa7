package chain

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
)

// fakeChain is a stateful model of a Solana cluster seen through one RPC
// node, plus a Jito block engine. Block height follows the (virtual) clock:
// one block per slotTime. A transaction accepted at height h lands in slot
// h+1 (processed), is confirmed from h+2 and finalized from h+33. A
// blockhash issued at height b is valid while height <= b+lifetime.
type fakeChain struct {
	mu       sync.Mutex
	start    time.Time
	slotTime time.Duration
	lifetime uint64

	hashes   map[solana.Hash]uint64    // blockhash → height issued
	lagUntil map[solana.Hash]time.Time // the node does not know the hash before
	landed   map[solana.Signature]*landing
	nextHash uint64

	dropSends map[solana.Signature]int             // sends to drop silently
	sendReply map[solana.Signature][]*fakeRPCError // scripted send errors, in order
	failing   map[solana.Signature]any             // lands with this error
	sends     map[solana.Signature]int             // sendTransaction count
	accounts  map[solana.PublicKey]*Account        // current state
	post      map[solana.PublicKey]*Account        // simulation post-state
	simErr    any
	simLogs   []string
	// simBalances makes simulateTransaction return the accounts' balances
	// before (accounts) and after (post), as Agave's current nodes do.
	simBalances bool
	calls       []fakeCall
	// statusLag delays by that many slots what getSignatureStatuses shows.
	statusLag uint64
	// hook, if set, runs under the lock before each method is served.
	hook func(method string)

	tipAccounts []solana.PublicKey
	// tipAnswer, when set, is getTipAccounts' answer instead of tipAccounts.
	tipAnswer     []string
	minTip        uint64 // bundles tipping less are dropped
	underTipState string // status of an under-tipped bundle: Failed (default) or Pending
	bundles       []*fakeBundle
}

// landing is a transaction included in a block.
type landing struct {
	slot uint64
	err  any
}

// fakeBundle is a bundle the engine received.
type fakeBundle struct {
	id     string
	sigs   []solana.Signature
	tip    uint64
	tipTo  solana.PublicKey
	status string // Landed, Failed, Pending
	slot   uint64
}

// fakeCall is one JSON-RPC request the fake served.
type fakeCall struct {
	at     time.Time
	host   string
	path   string
	method string
	params []any
	auth   string
}

// fakeRPCError is a JSON-RPC error to answer.
type fakeRPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// newFakeChain returns a cluster at height 0 with blockhashes that live
// lifetime blocks of 400 ms, and 8 tip accounts.
func newFakeChain(lifetime uint64) *fakeChain {
	fc := &fakeChain{
		start: time.Now(), slotTime: 400 * time.Millisecond, lifetime: lifetime,
		hashes: map[solana.Hash]uint64{}, lagUntil: map[solana.Hash]time.Time{},
		landed: map[solana.Signature]*landing{}, dropSends: map[solana.Signature]int{},
		sendReply: map[solana.Signature][]*fakeRPCError{}, failing: map[solana.Signature]any{},
		sends: map[solana.Signature]int{}, accounts: map[solana.PublicKey]*Account{},
		post: map[solana.PublicKey]*Account{}, minTip: MinTipLamports, underTipState: bundleFailed,
	}
	for range 8 {
		fc.tipAccounts = append(fc.tipAccounts, solana.NewWallet().PublicKey())
	}
	return fc
}

// height is the current block height (caller holds mu or does not care).
func (fc *fakeChain) height() uint64 {
	return uint64(time.Since(fc.start) / fc.slotTime)
}

// newBlockhash issues a blockhash at the current height.
func (fc *fakeChain) newBlockhash() solana.Hash {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.issueLocked()
}

// issueLocked issues a distinct blockhash at the current height.
func (fc *fakeChain) issueLocked() solana.Hash {
	fc.nextHash++
	var h solana.Hash
	binary.LittleEndian.PutUint64(h[:], fc.nextHash)
	h[31] = 0xbb
	fc.hashes[h] = fc.height()
	return h
}

// hashValidLocked tells whether a transaction with h could be included now.
func (fc *fakeChain) hashValidLocked(h solana.Hash) bool {
	issued, ok := fc.hashes[h]
	if !ok || time.Now().Before(fc.lagUntil[h]) {
		return false
	}
	return fc.height() <= issued+fc.lifetime
}

// statusLocked returns a signature's status as the node sees it now.
func (fc *fakeChain) statusLocked(sig solana.Signature) (l *landing, conf string) {
	l = fc.landed[sig]
	h := fc.height()
	if h < fc.statusLag {
		return nil, ""
	}
	h -= fc.statusLag
	switch {
	case l == nil || l.slot > h:
		return nil, ""
	case h >= l.slot+32:
		return l, "finalized"
	case h >= l.slot+1:
		return l, "confirmed"
	}
	return l, "processed"
}

// acceptLocked includes a transaction in the next slot if its blockhash is
// valid and it has not landed yet.
func (fc *fakeChain) acceptLocked(tx *solana.Transaction) bool {
	sig := tx.Signatures[0]
	if fc.landed[sig] != nil || !fc.hashValidLocked(tx.Message.RecentBlockhash) {
		return false
	}
	fc.landed[sig] = &landing{slot: fc.height() + 1, err: fc.failing[sig]}
	return true
}

// sendCount returns how many times sig was sent.
func (fc *fakeChain) sendCount(sig solana.Signature) int {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.sends[sig]
}

// isLanded reports whether sig was included in a block.
func (fc *fakeChain) isLanded(sig solana.Signature) bool {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.landed[sig] != nil
}

// callsOf returns the calls of one method.
func (fc *fakeChain) callsOf(method string) []fakeCall {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	var out []fakeCall
	for _, c := range fc.calls {
		if c.method == method {
			out = append(out, c)
		}
	}
	return out
}

// sentBundles returns a copy of the bundles received.
func (fc *fakeChain) sentBundles() []fakeBundle {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	out := make([]fakeBundle, len(fc.bundles))
	for i, b := range fc.bundles {
		out[i] = *b
	}
	return out
}

// bundleLocked models the engine receiving a bundle: it lands atomically in
// the next slot if every member is new and valid and the tip suffices.
func (fc *fakeChain) bundleLocked(txs []*solana.Transaction) *fakeBundle {
	b := &fakeBundle{status: bundleLanded}
	parts := make([]string, len(txs))
	for i, tx := range txs {
		b.sigs = append(b.sigs, tx.Signatures[0])
		parts[i] = tx.Signatures[0].String()
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, ",")))
	b.id = hex.EncodeToString(sum[:])
	b.tip, b.tipTo = fc.tipOf(txs[len(txs)-1])
	for _, tx := range txs {
		if fc.landed[tx.Signatures[0]] != nil || !fc.hashValidLocked(tx.Message.RecentBlockhash) {
			b.status = bundleFailed
		}
	}
	if b.status == bundleLanded && b.tip < fc.minTip {
		b.status = fc.underTipState
	}
	if b.status == bundleLanded {
		b.slot = fc.height() + 1
		for _, tx := range txs {
			fc.landed[tx.Signatures[0]] = &landing{slot: b.slot, err: fc.failing[tx.Signatures[0]]}
		}
	}
	fc.bundles = append(fc.bundles, b)
	return b
}

// tipOf returns the lamports a transaction transfers to a tip account.
func (fc *fakeChain) tipOf(tx *solana.Transaction) (uint64, solana.PublicKey) {
	m := tx.Message
	for _, ix := range m.Instructions {
		d := []byte(ix.Data)
		if !m.AccountKeys[ix.ProgramIDIndex].Equals(solana.SystemProgramID) || len(d) != 12 || binary.LittleEndian.Uint32(d) != 2 {
			continue
		}
		to := m.AccountKeys[ix.Accounts[1]]
		for _, t := range fc.tipAccounts {
			if t.Equals(to) {
				return binary.LittleEndian.Uint64(d[4:]), to
			}
		}
	}
	return 0, solana.PublicKey{}
}
