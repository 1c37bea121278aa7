package chain

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
)

// mainnetTipAccounts are the tip accounts Jito's mainnet block engines
// publish (getTipAccounts, and Jito's documentation); they "have remained
// constant", and keeper still asks the engine once it has sent a bundle.
var mainnetTipAccounts = []solana.PublicKey{
	solana.MustPublicKeyFromBase58("96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5"),
	solana.MustPublicKeyFromBase58("HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe"),
	solana.MustPublicKeyFromBase58("Cw8CFyM9FkoMi7K7Crf6HNQqf4uEMzpKw6QNghXLvLkY"),
	solana.MustPublicKeyFromBase58("ADaUMid9yfUytqMBgopwjb2DTLSokTSzL1zt6iGPaS49"),
	solana.MustPublicKeyFromBase58("DfXygSm4jCyNCybVYYK6DwvWqjKee8pbDmJGcLWNDXjh"),
	solana.MustPublicKeyFromBase58("ADuUkR4vqLUMWXxW9gh6D6L8pMSawimctcNZ5pGwDcEt"),
	solana.MustPublicKeyFromBase58("DttWaMuVvTiduZRnguLF7jNxTgiMBZ1hyAumKUiL2KRL"),
	solana.MustPublicKeyFromBase58("3AVi9Tg9Uo68tJfuvoKvqKNWKkC5wPdSSdeBnizKZ6jT"),
}

// PublishedTipAccounts returns the tip accounts the block engine at
// jitoURL publishes, when keeper knows them: Jito's mainnet engines
// (hosts under mainnet.block-engine.jito.wtf); nil for any other, whose
// accounts the client asks for before its first bundle.
func PublishedTipAccounts(jitoURL string) []solana.PublicKey {
	u, err := url.Parse(jitoURL)
	if err != nil {
		return nil
	}
	host := u.Hostname()
	if host != "mainnet.block-engine.jito.wtf" && !strings.HasSuffix(host, ".mainnet.block-engine.jito.wtf") {
		return nil
	}
	return slices.Clone(mainnetTipAccounts)
}

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
	p.RaisePercent = cmp.Or(p.RaisePercent, DefaultTipRaisePercent)
	p.RaiseAfter = cmp.Or(p.RaiseAfter, DefaultTipRaiseAfter)
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
	step := max(cur/100*p.RaisePercent, 1)
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

// Tip accounts asked of the engine are asked again, in the background,
// once tipAccountsMaxAge has passed since the answer in use: Jito's docs
// say they "have remained constant", but a daemon runs for months, and a
// tip to an account that no longer is one buys nothing. A failed refresh
// keeps the answer in use and is tried again tipAccountsRetry later.
const (
	tipAccountsMaxAge = time.Hour
	tipAccountsRetry  = time.Minute
	// tipRefreshTimeout bounds one background refresh.
	tipRefreshTimeout = 30 * time.Second
)

// tipBook remembers the engine's tip accounts and the tips this client
// handed out, so that it never makes the same tip transaction twice. It is
// safe for concurrent use.
type tipBook struct {
	jito *jitoClient
	log  *slog.Logger
	// pinned: the accounts were configured (Options.TipAccounts) and are
	// never asked for.
	pinned bool
	// life is the client's life: Close ends it and waits for a background
	// refresh in flight (refreshing).
	life       context.Context
	end        context.CancelFunc
	refreshing sync.WaitGroup

	mu       sync.Mutex
	accounts []solana.PublicKey   // guarded by mu; cached getTipAccounts
	askedAt  time.Time            // guarded by mu; when accounts were answered
	nextAsk  time.Time            // guarded by mu; no refresh before, after a failed one
	asking   *tipAsk              // guarded by mu; the request in flight, if any
	made     map[tipKey]time.Time // guarded by mu; tips handed out, see pick
}

// newTipBook returns the tip book of a client of o: the pinned accounts;
// else the known ones (never asked of the engine, so refreshed after the
// first accepted bundle); else none until the engine is asked.
func newTipBook(o Options) *tipBook {
	life, end := context.WithCancel(context.Background())
	tb := &tipBook{log: o.Logger, life: life, end: end, made: map[tipKey]time.Time{}}
	switch {
	case len(o.TipAccounts) > 0:
		tb.accounts, tb.pinned = slices.Clone(o.TipAccounts), true
	case len(o.KnownTipAccounts) > 0:
		tb.accounts = slices.Clone(o.KnownTipAccounts)
	}
	return tb
}

// close stops a background refresh in flight and waits for it. Ending the
// book's life under mu keeps one from starting afterwards.
func (tb *tipBook) close() {
	tb.mu.Lock()
	tb.end()
	tb.mu.Unlock()
	tb.refreshing.Wait()
}

// tipAsk is a getTipAccounts request in flight. done is closed once err
// and ctxEnded are set.
type tipAsk struct {
	done     chan struct{}
	err      error
	ctxEnded bool // the asker's own context ended: the error is not the engine's
}

// pick returns, at random, one of the engine's tip accounts (see known)
// and the lamports to pay it: lamports, or a few more (never above limit),
// so that this client never makes the same tip transaction twice. Two
// bundles sharing a blockhash and a tip amount (actions built in the same
// slot) would otherwise get the same tip transaction one time in eight,
// and the second bundle could never land, its tip having landed or being
// in flight already. Another account is used first; one more lamport only
// when every account is taken.
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

// known returns the engine's tip accounts: the cached ones (see
// refreshIfOld for their refresh); else, while a request for them
// is in flight, its answer (waiting for it as long as ctx lasts, so that
// the engine is asked once at a time); else those of a request made now. A
// failed request caches nothing, and those who waited for it get its
// error; one that failed because its asker's context ended is made again
// by the next caller.
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
	ask := tb.begin()
	tb.mu.Unlock()
	defer func() { tb.finish(ask, accs, err, ctx.Err() != nil) }()
	return tb.jito.tipAccounts(ctx)
}

// refreshIfOld starts a background request for the tip accounts when those
// cached were answered tipAccountsMaxAge or more ago, none is in flight,
// and no failed refresh asked to wait. A bundle calls it once the engine
// accepted it: the request takes its turn under the engine's rate limit,
// and made earlier it would hold up that bundle's send.
func (tb *tipBook) refreshIfOld() {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	now := time.Now()
	if tb.pinned || tb.jito == nil || len(tb.accounts) == 0 || tb.asking != nil ||
		now.Sub(tb.askedAt) < tipAccountsMaxAge || now.Before(tb.nextAsk) || tb.life.Err() != nil {
		return
	}
	ask := tb.begin()
	tb.refreshing.Go(func() {
		ctx, cancel := context.WithTimeout(tb.life, tipRefreshTimeout)
		defer cancel()
		accs, err := tb.jito.tipAccounts(ctx)
		if err != nil {
			tb.log.Warn("Could not refresh the block engine's tip accounts; keeping those in use", "retry_in", tipAccountsRetry, "err", err)
		}
		tb.finish(ask, accs, err, ctx.Err() != nil)
	})
}

// begin records a request as in flight. The caller holds mu.
func (tb *tipBook) begin() *tipAsk {
	ask := &tipAsk{done: make(chan struct{})}
	tb.asking = ask
	return ask
}

// finish records a request's end: its answer is cached, or, for a failed one while
// older accounts are kept, the next refresh waits tipAccountsRetry. Those
// waiting for it are released.
func (tb *tipBook) finish(ask *tipAsk, accs []solana.PublicKey, err error, ctxEnded bool) {
	tb.mu.Lock()
	now := time.Now()
	switch {
	case err == nil:
		if len(tb.accounts) > 0 && !sameKeys(tb.accounts, accs) {
			tb.log.Info("The block engine's tip accounts changed", "was", len(tb.accounts), "now", len(accs))
		}
		tb.accounts, tb.askedAt = slices.Clone(accs), now
	case len(tb.accounts) > 0:
		tb.nextAsk = now.Add(tipAccountsRetry)
	}
	tb.asking, ask.err, ask.ctxEnded = nil, err, ctxEnded
	tb.mu.Unlock()
	close(ask.done)
}

// sameKeys reports whether a and b hold the same keys, in any
// order.
func sameKeys(a, b []solana.PublicKey) bool {
	if len(a) != len(b) {
		return false
	}
	for _, k := range a {
		if !slices.Contains(b, k) {
			return false
		}
	}
	return true
}

// forget drops the tips made longer than tipMemory before now. The
// caller holds mu.
func (tb *tipBook) forget(now time.Time) {
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
