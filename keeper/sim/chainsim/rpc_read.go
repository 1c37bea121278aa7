package chainsim

import (
	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/internal/jsonrpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// readAPI serves the RPC service's reads of blocks, slots and accounts.
type readAPI struct {
	c *Chain
}

// getLatestBlockhash: [config] → {blockhash, lastValidBlockHeight}.
func (r *readAPI) getLatestBlockhash(in jsonrpc.Call) (any, *jsonrpc.Error) {
	return r.readAt(in, 0, func(pos svm.BlockPos) any {
		return contextValue(pos.Slot, map[string]any{
			"blockhash":            pos.Hash.String(),
			"lastValidBlockHeight": pos.Height + MaxBlockhashAge,
		})
	})
}

// isBlockhashValid: [blockhash, config] → bool.
func (r *readAPI) isBlockhashValid(in jsonrpc.Call) (any, *jsonrpc.Error) {
	var hash solana.Hash
	if rerr := in.Need(0, &hash); rerr != nil {
		return nil, rerr
	}
	return r.readAt(in, 1, func(pos svm.BlockPos) any {
		return contextValue(pos.Slot, r.c.Ledger.idx.validAt(hash, pos.Height))
	})
}

// getBlockHeight: [config] → height.
func (r *readAPI) getBlockHeight(in jsonrpc.Call) (any, *jsonrpc.Error) {
	return r.readAt(in, 0, func(pos svm.BlockPos) any { return pos.Height })
}

// getSlot: [config] → slot.
func (r *readAPI) getSlot(in jsonrpc.Call) (any, *jsonrpc.Error) {
	return r.readAt(in, 0, func(pos svm.BlockPos) any { return pos.Slot })
}

// getBalance: [pubkey, config] → lamports.
func (r *readAPI) getBalance(in jsonrpc.Call) (any, *jsonrpc.Error) {
	var key solana.PublicKey
	if rerr := in.Need(0, &key); rerr != nil {
		return nil, rerr
	}
	return r.readAt(in, 1, func(pos svm.BlockPos) any {
		return contextValue(pos.Slot, svm.LamportsOf(r.c.State.past.seen(pos.Slot, in.Lag, r.c.State.accounts), key))
	})
}

// readAt reads a commitment config at parameter i and returns what read
// makes of the block it sees, called under the chain's lock.
func (r *readAPI) readAt(in jsonrpc.Call, i int, read func(pos svm.BlockPos) any) (any, *jsonrpc.Error) {
	var cfg commitmentConfig
	if rerr := in.Arg(i, &cfg); rerr != nil {
		return nil, rerr
	}
	r.c.lock()
	defer r.c.unlock()
	pos, rerr := lagView(r.c.Ledger, cfg.Commitment, cfg.MinContextSlot, in.Lag)
	if rerr != nil {
		return nil, rerr
	}
	return read(pos), nil
}

// accountConfig is the config object of account reads.
type accountConfig struct {
	Commitment     string     `json:"commitment"`
	Encoding       string     `json:"encoding"`
	DataSlice      *dataSlice `json:"dataSlice"`
	MinContextSlot *uint64    `json:"minContextSlot"`
}

// getAccountInfo: [pubkey, config] → account or null (default encoding
// base58, as on a real node).
func (r *readAPI) getAccountInfo(in jsonrpc.Call) (any, *jsonrpc.Error) {
	var key solana.PublicKey
	if rerr := in.Need(0, &key); rerr != nil {
		return nil, rerr
	}
	out, rerr := r.readAccounts(in, 1, []solana.PublicKey{key}, "base58")
	if rerr != nil {
		return nil, rerr
	}
	return contextValue(out.Context.Slot, out.Value.([]*wireAccount)[0]), nil
}

// maxMultipleAccounts is the most keys getMultipleAccounts takes.
const maxMultipleAccounts = 100

// getMultipleAccounts: [[pubkey], config] → accounts (default base64).
func (r *readAPI) getMultipleAccounts(in jsonrpc.Call) (any, *jsonrpc.Error) {
	keys, rerr := listArg[solana.PublicKey](in, true, maxMultipleAccounts)
	if rerr != nil {
		return nil, rerr
	}
	return r.readAccounts(in, 1, keys, "base64")
}

// readAccounts reads keys with the account config at parameter i.
func (r *readAPI) readAccounts(in jsonrpc.Call, i int, keys []solana.PublicKey, defEncoding string) (withContext, *jsonrpc.Error) {
	cfg := accountConfig{Encoding: defEncoding}
	if rerr := in.Arg(i, &cfg); rerr != nil {
		return withContext{}, rerr
	}
	if cfg.Encoding == "" {
		cfg.Encoding = defEncoding
	}
	if rerr := checkAccountEncoding(cfg.Encoding); rerr != nil {
		return withContext{}, rerr
	}
	r.c.lock()
	defer r.c.unlock()
	pos, rerr := lagView(r.c.Ledger, cfg.Commitment, cfg.MinContextSlot, in.Lag)
	if rerr != nil {
		return withContext{}, rerr
	}
	accounts := r.c.State.past.seen(pos.Slot, in.Lag, r.c.State.accounts)
	out := make([]*wireAccount, len(keys))
	for j, k := range keys {
		a, _ := accounts.Get(k)
		if k == svm.ClockSysvarID {
			a = svm.ClockAccount(pos, SlotDuration)
		}
		if out[j], rerr = encodeAccount(a, cfg.Encoding, cfg.DataSlice); rerr != nil {
			return withContext{}, rerr
		}
	}
	return contextValue(pos.Slot, out), nil
}
