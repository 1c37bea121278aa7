package chain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/gagliardetto/solana-go"
)

// SimResult is the outcome of a successful simulation.
type SimResult struct {
	Logs          []string
	UnitsConsumed uint64
	// Fee is what the fee payer will be charged (see Outflows).
	Fee Fee
	// Outflows are the wallet's net outflows had the transaction landed.
	Outflows Outflows
}

// Outflows are a wallet's net outflows from one transaction; a negative
// value is an inflow.
type Outflows struct {
	// Lamports is the wallet's balance before minus after. The fee is in it
	// once: validators return simulated accounts with the fee already
	// charged to the fee payer (Agave's account loader debits it before
	// execution), so nothing is added. The wallet's own wrapped-SOL
	// accounts count here by their lamports: wrapped SOL is one asset with
	// SOL.
	Lamports int64
	// Tokens maps each other mint of the wallet's token accounts the
	// transaction references to the sum over those accounts of amount
	// before minus amount after. A token account closed or handed to another
	// owner counts as emptied. Token accounts the transaction creates are not
	// seen.
	Tokens map[solana.PublicKey]int64
	// StrandsWallet reports that the transaction would leave the wallet
	// with lamports above zero but below its rent-exempt minimum
	// (WalletRentMinimum) where the runtime's rent rule refuses that: it
	// would fail on chain with InsufficientFundsForRent, charged its fee,
	// whatever a node's simulation said.
	StrandsWallet bool
}

// simulator simulates transactions and measures the wallet's outflows.
type simulator struct {
	reads      *Reads
	tables     *lookupTables
	bundleSims *pool // SimulateBundleURL, or RPCURLs
	log        *slog.Logger

	bundleSimOff  atomic.Bool // the bundle simulation endpoint has no simulateBundle
	simNoBalances atomic.Bool // the RPC node's simulateTransaction returns no balances
}

// simulate implements [Client.Simulate].
func (s *simulator) simulate(ctx context.Context, raw []byte, wallet solana.PublicKey) (*SimResult, error) {
	tx, fee, err := decodeUnsigned(raw, wallet)
	if err != nil {
		return nil, fmt.Errorf("simulate: %w", err)
	}
	if !s.simNoBalances.Load() {
		res, err := s.simulateWithBalances(ctx, raw, tx.Message, wallet, fee)
		if !errors.Is(err, errNoBalances) {
			return res, err
		}
		s.simNoBalances.Store(true)
		s.log.Info("The RPC node's simulateTransaction returns no balances; reading the wallet's accounts around each simulation instead")
	}
	for range maxSimulateTries {
		res, stable, err := s.simulateOnce(ctx, raw, tx.Message, wallet, fee)
		if err != nil || stable {
			return res, err
		}
	}
	return nil, fmt.Errorf("simulate: %w", ErrWalletMoving)
}

// maxSimulateTries bounds how often Simulate starts again because the wallet's accounts changed
// while it was measuring them.
const maxSimulateTries = 3

// ErrWalletMoving reports that the wallet's accounts changed between the read of their state before
// a simulation and the simulation itself on every try: the outflows could not be measured against
// the state the simulation ran on. It is transient.
var ErrWalletMoving = errors.New("the wallet's accounts changed while the transaction was simulated")

// simulateOnce reads the watched accounts, simulates raw, and reads them again. The outflows are
// measured only when both reads agree (stable): otherwise something landed in between, and the
// simulation may have run on other balances than the first read, which could hide an outflow
// behind an inflow of the same size, or charge another transaction's outflow to this one.
func (s *simulator) simulateOnce(ctx context.Context, raw []byte, m solana.Message, wallet solana.PublicKey, fee Fee) (*SimResult, bool, error) {
	addrs, pre, err := s.preState(ctx, m, wallet)
	if err != nil {
		return nil, false, fmt.Errorf("simulate: %w", err)
	}
	v, res, err := s.simulateRaw(ctx, raw, addrs, fee)
	if err != nil {
		return res, true, err
	}
	if len(v.Accounts) != len(addrs) {
		return nil, false, fmt.Errorf("simulate: %d post-state accounts for %d addresses", len(v.Accounts), len(addrs))
	}
	again, err := s.reads.Accounts(ctx, addrs)
	if err != nil {
		return nil, false, fmt.Errorf("simulate: read the state again: %w", err)
	}
	if !sameAccounts(pre, again) {
		return nil, false, nil
	}
	post := make([]*Account, len(v.Accounts))
	for i, a := range v.Accounts {
		post[i] = toAccount(a)
	}
	res.Outflows, err = outflows(wallet, pre, post)
	if err != nil {
		return nil, false, fmt.Errorf("simulate: %w", err)
	}
	return res, true, nil
}

// sameAccounts reports whether two reads of the same accounts agree on each one's existence,
// lamports, owner and data.
func sameAccounts(a, b []*Account) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		switch {
		case a[i] == nil || b[i] == nil:
			if a[i] != b[i] {
				return false
			}
		case a[i].Lamports != b[i].Lamports || !a[i].Owner.Equals(b[i].Owner) || !bytes.Equal(a[i].Data, b[i].Data):
			return false
		}
	}
	return true
}

// wrappedSOLAccount is the wallet's wrapped-SOL associated token account.
func wrappedSOLAccount(wallet solana.PublicKey) solana.PublicKey {
	ata, _, err := solana.FindAssociatedTokenAddress(wallet, solana.WrappedSol)
	if err != nil {
		return solana.PublicKey{}
	}
	return ata
}

// preState returns the addresses to watch (the wallet first, then the
// wallet's token accounts among the message's accounts, and its
// wrapped-SOL account even when the transaction creates it) and their state
// now.
func (s *simulator) preState(ctx context.Context, m solana.Message, wallet solana.PublicKey) ([]solana.PublicKey, []*Account, error) {
	lookups, err := s.tables.writableKeys(ctx, m)
	if err != nil {
		return nil, nil, err
	}
	keys := []solana.PublicKey{wallet}
	seen := map[solana.PublicKey]bool{wallet: true}
	for _, k := range append(append([]solana.PublicKey{}, m.AccountKeys...), lookups...) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	accs, err := s.reads.Accounts(ctx, keys)
	if err != nil {
		return nil, nil, fmt.Errorf("fetch pre-state: %w", err)
	}
	wsol := wrappedSOLAccount(wallet)
	addrs, pre := []solana.PublicKey{wallet}, []*Account{accs[0]}
	for i := 1; i < len(keys); i++ {
		if _, own := ownTokenAccount(wallet, accs[i]); own || keys[i].Equals(wsol) {
			addrs = append(addrs, keys[i])
			pre = append(pre, accs[i])
		}
	}
	return addrs, pre, nil
}
