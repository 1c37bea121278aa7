package chain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
)

// MinTipLamports is the block engine's minimum tip.
const MinTipLamports = 1000

// Tip policy defaults.
const (
	DefaultTipRaisePercent = 100 // each drop doubles the tip
	DefaultTipRaiseAfter   = 5 * time.Second
)

// TipFunc builds and signs keeper's tip transaction: one System transfer of
// lamports from the wallet to tipAccount, with the given blockhash. It must
// sign exactly the message BuildTipMessage(wallet, tipAccount, lamports,
// blockhash) returns (SendBundle checks), and may journal the signature
// before returning. It is called once per bundle submission.
type TipFunc func(ctx context.Context, tipAccount solana.PublicKey, lamports uint64, blockhash solana.Hash) (Signed, error)

// TipPolicy sets the Jito tip and what to do when a bundle cannot work.
type TipPolicy struct {
	// Floor is the first tip, at least MinTipLamports.
	Floor uint64
	// Cap is never exceeded; at least Floor.
	Cap uint64
	// RaisePercent raises the tip after each dropped bundle by this percent
	// of the current tip (default 100: doubling), capped at Cap.
	RaisePercent uint64
	// RaiseAfter: a bundle neither landed nor failed this long after it was
	// accepted counts as dropped (default 5 s).
	RaiseAfter time.Duration
	// FallbackRPC allows sending the transactions one by one through RPC,
	// losing atomicity, when they leave no room for the tip (5 of them) or
	// when a bundle at the cap is dropped again. Without it SendBundle refuses
	// a full bundle and keeps resubmitting at the cap until expiry.
	FallbackRPC bool
}

// normalized returns p with defaults applied, or an error.
func (p TipPolicy) normalized() (TipPolicy, error) {
	if p.RaisePercent == 0 {
		p.RaisePercent = DefaultTipRaisePercent
	}
	if p.RaiseAfter == 0 {
		p.RaiseAfter = DefaultTipRaiseAfter
	}
	switch {
	case p.Floor < MinTipLamports:
		return p, fmt.Errorf("tip floor %d lamports is below the engine's minimum of %d", p.Floor, MinTipLamports)
	case p.Cap < p.Floor:
		return p, fmt.Errorf("tip cap %d lamports is below the floor %d", p.Cap, p.Floor)
	case p.RaisePercent > 10_000:
		return p, fmt.Errorf("tip raise of %d%% is more than 100-fold", p.RaisePercent)
	case p.RaiseAfter < 0:
		return p, errors.New("tip raise-after must not be negative")
	}
	return p, nil
}

// next returns the tip after a drop: raised by RaisePercent (at least one
// lamport), never above Cap.
func (p TipPolicy) next(cur uint64) uint64 {
	step := cur / 100 * p.RaisePercent
	if step == 0 {
		step = 1
	}
	if cur > p.Cap-min(step, p.Cap) {
		return p.Cap
	}
	return cur + step
}

// BuildTipMessage returns the serialized legacy message of a tip
// transaction: one System transfer of lamports from payer (fee payer and
// only signer) to tipAccount, with the given blockhash. Tip accounts are
// static keys, never lookup-table entries.
func BuildTipMessage(payer, tipAccount solana.PublicKey, lamports uint64, blockhash solana.Hash) ([]byte, error) {
	switch {
	case payer.IsZero(), tipAccount.IsZero():
		return nil, errors.New("tip message: payer and tip account are required")
	case payer.Equals(tipAccount):
		return nil, errors.New("tip message: payer is the tip account")
	case lamports == 0:
		return nil, errors.New("tip message: zero lamports")
	case blockhash.IsZero():
		return nil, errors.New("tip message: blockhash is required")
	}
	ix := system.NewTransferInstruction(lamports, payer, tipAccount).Build()
	tx, err := solana.NewTransaction([]solana.Instruction{ix}, blockhash, solana.TransactionPayer(payer))
	if err != nil {
		return nil, fmt.Errorf("tip message: %w", err)
	}
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("tip message: %w", err)
	}
	return msg, nil
}

// checkTip verifies that the TipFunc's transaction is the tip asked for:
// exactly the BuildTipMessage message for its fee payer, fully signed.
func checkTip(s Signed, tipAccount solana.PublicKey, lamports uint64, blockhash solana.Hash) error {
	tx, err := s.check()
	if err != nil {
		return fmt.Errorf("tip transaction: %w", err)
	}
	want, err := BuildTipMessage(tx.Message.AccountKeys[0], tipAccount, lamports, blockhash)
	if err != nil {
		return err
	}
	if len(s.Raw) != 1+64+len(want) || !bytes.Equal(s.Raw[1+64:], want) {
		return fmt.Errorf("tip transaction is not the transfer of %d lamports to %s asked for", lamports, tipAccount)
	}
	return nil
}

// tipMemory is how long a tip handed out is remembered: longer than any
// blockhash lives.
const tipMemory = 5 * time.Minute

// tipKey identifies a tip transaction of one payer: the same tip account,
// lamports and blockhash make the very same transaction, signature
// included (ed25519 signatures are deterministic).
type tipKey struct {
	account   solana.PublicKey
	lamports  uint64
	blockhash solana.Hash
}

// tipBook remembers the engine's tip accounts and the tips this client
// handed out, so that it never makes the same tip transaction twice. It is
// safe for concurrent use.
type tipBook struct {
	jito     *jitoClient
	mu       sync.Mutex
	accounts []solana.PublicKey   // guarded by mu; cached getTipAccounts
	asking   *tipAsk              // guarded by mu; the request in flight, if any
	made     map[tipKey]time.Time // guarded by mu; tips handed out, see pick
}

// tipAsk is a getTipAccounts request in flight. done is closed once err
// and ctxEnded are set.
type tipAsk struct {
	done     chan struct{}
	err      error
	ctxEnded bool // the asker's own context ended: the error is not the engine's
}

// pick returns, at random, one of the engine's tip accounts (fetched
// once, then cached) and the lamports to pay it: lamports, or a few more
// (never above limit), so that this client never makes the same tip
// transaction twice. Two bundles sharing a blockhash and a tip amount
// (actions built in the same slot) would otherwise get the same tip
// transaction one time in eight, and the second bundle could never land,
// its tip having landed or being in flight already. Another account is
// used first; one more lamport only when every account is taken.
func (tb *tipBook) pick(ctx context.Context, lamports, limit uint64, bh solana.Hash) (solana.PublicKey, uint64, error) {
	if _, err := tb.known(ctx); err != nil {
		return solana.PublicKey{}, 0, err
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	now := time.Now()
	tb.forget(now)
	for l := lamports; l <= limit; l++ {
		if acct, ok := tb.free(l, bh); ok {
			tb.made[tipKey{acct, l, bh}] = now
			return acct, l, nil
		}
		if l == limit { // l++ would overflow at the largest limit
			break
		}
	}
	return solana.PublicKey{}, 0, fmt.Errorf("every tip account already has a tip of %d to %d lamports with blockhash %s", lamports, limit, bh)
}

// known returns the engine's tip accounts: the cached ones; else, while a
// request for them is in flight, its answer (waiting for it as long as ctx
// lasts, so that the engine is asked once at a time); else those of a
// request made now. A failed request caches nothing, and those who waited
// for it get its error; one that failed because its asker's context ended
// is made again by the next caller.
func (tb *tipBook) known(ctx context.Context) ([]solana.PublicKey, error) {
	for {
		tb.mu.Lock()
		if len(tb.accounts) > 0 {
			accs := slices.Clone(tb.accounts)
			tb.mu.Unlock()
			return accs, nil
		}
		ask := tb.asking
		if ask == nil {
			return tb.ask(ctx) // unlocks mu
		}
		tb.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ask.done:
		}
		if ask.err != nil && !ask.ctxEnded {
			return nil, ask.err
		}
	}
}

// ask makes a getTipAccounts request, which the caller holding mu has
// found none in flight, and caches its answer. It releases mu while the
// request is out; those waiting for it are released however it ends.
func (tb *tipBook) ask(ctx context.Context) (accs []solana.PublicKey, err error) {
	ask := &tipAsk{done: make(chan struct{})}
	tb.asking = ask
	tb.mu.Unlock()
	defer func() {
		tb.mu.Lock()
		if err == nil {
			tb.accounts = slices.Clone(accs)
		}
		tb.asking, ask.err, ask.ctxEnded = nil, err, ctx.Err() != nil
		tb.mu.Unlock()
		close(ask.done)
	}()
	return tb.jito.tipAccounts(ctx)
}

// forget drops the tips made longer than tipMemory before now. The
// caller holds mu.
func (tb *tipBook) forget(now time.Time) {
	if tb.made == nil {
		tb.made = map[tipKey]time.Time{}
	}
	for k, at := range tb.made {
		if now.Sub(at) > tipMemory {
			delete(tb.made, k)
		}
	}
}

// free picks at random a tip account without a tip of lamports
// with blockhash bh. The caller holds mu.
func (tb *tipBook) free(lamports uint64, bh solana.Hash) (solana.PublicKey, bool) {
	var free []solana.PublicKey
	for _, a := range tb.accounts {
		if _, used := tb.made[tipKey{a, lamports, bh}]; !used {
			free = append(free, a)
		}
	}
	if len(free) == 0 {
		return solana.PublicKey{}, false
	}
	return free[rand.IntN(len(free))], true
}
