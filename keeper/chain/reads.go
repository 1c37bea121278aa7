package chain

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// maxAccountsBatch is getMultipleAccounts' limit on keys per call.
const maxAccountsBatch = 100

// Account is an account's state.
type Account struct {
	Lamports   uint64
	Owner      solana.PublicKey // the program that owns it
	Data       []byte
	Executable bool
}

// Blockhash is a recent blockhash and the last block height at which a
// transaction using it can land.
type Blockhash struct {
	Hash                 solana.Hash
	LastValidBlockHeight uint64
}

// Reads reads accounts, balances, the slot and blockhashes from the RPC
// nodes, failing over in the configured order, at the client's commitment.
//
// Account reads and simulations never see the chain older than the newest
// slot the client has seen: where its transactions landed and what earlier
// reads answered. They send it as minContextSlot, so a node behind that slot
// (a lagging node behind a load balancer) refuses with -32016 and the read
// fails over or fails, instead of showing keeper accounts as they were
// before its own transaction landed, from which it would decide to act
// again.
type Reads struct {
	pool       *pool // RPCURLs
	commitment rpc.CommitmentType
	newest     atomic.Uint64 // the newest slot the client has seen
}

// saw records that the client has seen the chain at slot.
func (r *Reads) saw(slot uint64) {
	for {
		cur := r.newest.Load()
		if slot <= cur || r.newest.CompareAndSwap(cur, slot) {
			return
		}
	}
}

// minContextSlot returns the slot reads must have reached, or nil before
// the client has seen any.
func (r *Reads) minContextSlot() *uint64 {
	if s := r.newest.Load(); s > 0 {
		return &s
	}
	return nil
}

// behind explains err when it is a node's refusal of minContextSlot.
func behind(err error, min *uint64) error {
	var re *RPCError
	if min != nil && errors.As(err, &re) && re.Code == codeMinContextSlotNotReached {
		return fmt.Errorf("the RPC node has not reached slot %d, which this client has already seen: %w", *min, err)
	}
	return err
}

// Balance returns the wallet's lamports at the client's commitment.
func (r *Reads) Balance(ctx context.Context, wallet solana.PublicKey) (uint64, error) {
	out, err := callFor(ctx, r.pool, "getBalance", func(ctx context.Context, ep *endpoint) (*rpc.GetBalanceResult, error) {
		return ep.rpc.GetBalance(ctx, wallet, r.commitment)
	})
	if err != nil {
		return 0, err
	}
	return out.Value, nil
}

// LatestBlockhash returns the latest blockhash at the client's commitment.
func (r *Reads) LatestBlockhash(ctx context.Context) (Blockhash, error) {
	out, err := callFor(ctx, r.pool, "getLatestBlockhash", func(ctx context.Context, ep *endpoint) (*rpc.GetLatestBlockhashResult, error) {
		return ep.rpc.GetLatestBlockhash(ctx, r.commitment)
	})
	if err != nil {
		return Blockhash{}, err
	}
	if out == nil || out.Value == nil {
		return Blockhash{}, fmt.Errorf("getLatestBlockhash: empty answer")
	}
	return Blockhash{Hash: out.Value.Blockhash, LastValidBlockHeight: out.Value.LastValidBlockHeight}, nil
}

// BlockhashValid reports whether a transaction using hash can still land,
// as the node sees it at the client's commitment.
func (r *Reads) BlockhashValid(ctx context.Context, hash solana.Hash) (bool, error) {
	valid, _, err := r.blockhashValid(ctx, hash, r.commitment)
	return valid, err
}

// blockhashValid asks isBlockhashValid at commitment cm.
func (r *Reads) blockhashValid(ctx context.Context, hash solana.Hash, cm rpc.CommitmentType) (valid bool, slot uint64, err error) {
	out, err := callFor(ctx, r.pool, "isBlockhashValid", func(ctx context.Context, ep *endpoint) (*rpc.IsValidBlockhashResult, error) {
		return ep.rpc.IsBlockhashValid(ctx, hash, cm)
	})
	if err != nil {
		return false, 0, err
	}
	if out == nil {
		return false, 0, fmt.Errorf("isBlockhashValid: empty answer")
	}
	return out.Value, out.Context.Slot, nil
}

// MultipleAccounts returns the data of each account, in order, at the
// client's commitment; an entry is nil when the account does not exist.
// Keys are fetched 100 per call.
func (r *Reads) MultipleAccounts(ctx context.Context, keys []solana.PublicKey) ([][]byte, error) {
	accs, err := r.Accounts(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(accs))
	for i, a := range accs {
		if a != nil {
			out[i] = a.Data
		}
	}
	return out, nil
}

// Accounts returns each account's full state, in order, at the client's
// commitment; an entry is nil when the account does not exist.
func (r *Reads) Accounts(ctx context.Context, keys []solana.PublicKey) ([]*Account, error) {
	out := make([]*Account, 0, len(keys))
	for start := 0; start < len(keys); start += maxAccountsBatch {
		batch := keys[start:min(start+maxAccountsBatch, len(keys))]
		floor := r.minContextSlot()
		res, err := callFor(ctx, r.pool, "getMultipleAccounts", func(ctx context.Context, ep *endpoint) (*rpc.GetMultipleAccountsResult, error) {
			return ep.rpc.GetMultipleAccountsWithOpts(ctx, batch, &rpc.GetMultipleAccountsOpts{
				Encoding: solana.EncodingBase64, Commitment: r.commitment, MinContextSlot: floor,
			})
		})
		if err != nil {
			return nil, behind(err, floor)
		}
		r.saw(res.Context.Slot)
		if len(res.Value) != len(batch) {
			return nil, fmt.Errorf("getMultipleAccounts: %d accounts for %d keys", len(res.Value), len(batch))
		}
		for _, a := range res.Value {
			out = append(out, toAccount(a))
		}
	}
	return out, nil
}

// toAccount converts an RPC account (nil: missing).
func toAccount(a *rpc.Account) *Account {
	if a == nil {
		return nil
	}
	return &Account{Lamports: a.Lamports, Owner: a.Owner, Data: a.Data.GetBinary(), Executable: a.Executable}
}

// Slot returns the slot the node has reached at the client's commitment.
func (r *Reads) Slot(ctx context.Context) (uint64, error) {
	return callFor(ctx, r.pool, "getSlot", func(ctx context.Context, ep *endpoint) (uint64, error) {
		return ep.rpc.GetSlot(ctx, r.commitment)
	})
}

// MaxPrioritizationFeeAccounts is the most accounts one
// getRecentPrioritizationFees call takes (Agave's MAX_TX_ACCOUNT_LOCKS).
const MaxPrioritizationFeeAccounts = 128

// PrioritizationFee is one block's entry of getRecentPrioritizationFees.
type PrioritizationFee struct {
	// Slot is the block's slot.
	Slot uint64
	// MicroLamports is a compute-unit price, in micro-lamports per unit: the
	// lowest a transaction of the block paid, raised to the lowest paid by
	// the block's transactions that write-locked each account asked about,
	// whichever is highest (what a transaction writing those accounts had to
	// beat in that block).
	MicroLamports uint64
}

// wirePrioritizationFee is an entry as Agave's RPC encodes it.
type wirePrioritizationFee struct {
	Slot              *uint64 `json:"slot"`
	PrioritizationFee *uint64 `json:"prioritizationFee"`
}

// RecentPrioritizationFees asks the node for the prioritization fees of its
// recent blocks (Agave keeps the last 150 confirmed blocks that had a
// transaction) over accounts, typically a transaction's writable accounts;
// none asks for each block's lowest fee. Entries come in slot order. More
// than MaxPrioritizationFeeAccounts accounts is an error, as the node would
// refuse them.
func (r *Reads) RecentPrioritizationFees(ctx context.Context, accounts []solana.PublicKey) ([]PrioritizationFee, error) {
	if len(accounts) > MaxPrioritizationFeeAccounts {
		return nil, fmt.Errorf("getRecentPrioritizationFees: %d accounts, at most %d", len(accounts), MaxPrioritizationFeeAccounts)
	}
	keys := make([]string, len(accounts))
	for i, k := range accounts {
		keys[i] = k.String()
	}
	out, err := callJSON[[]wirePrioritizationFee](ctx, r.pool, "getRecentPrioritizationFees", []any{keys})
	if err != nil {
		return nil, err
	}
	fees := make([]PrioritizationFee, len(out))
	for i, f := range out {
		if f.Slot == nil || f.PrioritizationFee == nil {
			return nil, fmt.Errorf("getRecentPrioritizationFees: entry %d lacks slot or prioritizationFee", i)
		}
		fees[i] = PrioritizationFee{Slot: *f.Slot, MicroLamports: *f.PrioritizationFee}
	}
	slices.SortFunc(fees, func(a, b PrioritizationFee) int { return cmp.Compare(a.Slot, b.Slot) })
	return fees, nil
}
