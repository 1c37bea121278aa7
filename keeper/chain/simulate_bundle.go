package chain

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// MaxSimulateBundle is the most transactions one simulateBundle call takes.
const MaxSimulateBundle = 20

// ErrBundleSimUnavailable reports that the bundle simulation endpoint does
// not offer simulateBundle (it is not a Jito-Solana node). The client
// remembers it and does not ask again.
var ErrBundleSimUnavailable = errors.New("simulateBundle is not offered by the endpoint")

// codeMethodNotFound is JSON-RPC's "method not found".
const codeMethodNotFound = -32601

// sequence implements [Client.SimulateSequence].
func (s *simulator) sequence(ctx context.Context, raws [][]byte, wallet solana.PublicKey) ([]*SimResult, error) {
	if len(raws) == 0 || len(raws) > MaxSimulateBundle {
		return nil, fmt.Errorf("simulate sequence: %d transactions, want 1 to %d", len(raws), MaxSimulateBundle)
	}
	if s.bundleSimOff.Load() {
		return nil, ErrBundleSimUnavailable
	}
	fees := make([]Fee, len(raws))
	watch := make([][]solana.PublicKey, len(raws))
	for i, raw := range raws {
		tx, fee, err := decodeUnsigned(raw, wallet)
		if err == nil {
			fees[i] = fee
			watch[i], err = s.watchKeys(ctx, tx.Message, wallet)
		}
		if err != nil {
			return nil, fmt.Errorf("simulate sequence: transaction %d: %w", i, err)
		}
	}
	v, err := s.simulateBundle(ctx, raws, watch)
	if err != nil {
		return nil, err
	}
	return sequenceResults(v, wallet, fees)
}

// watchKeys are the accounts whose pre- and post-state a sequence's
// transaction reports: the wallet, the writable accounts of the message
// (lookup-table entries included) and the wallet's wrapped-SOL account.
func (s *simulator) watchKeys(ctx context.Context, m solana.Message, wallet solana.PublicKey) ([]solana.PublicKey, error) {
	lookups, err := s.tables.writableKeys(ctx, m)
	if err != nil {
		return nil, err
	}
	keys := []solana.PublicKey{wallet}
	add := func(k solana.PublicKey) {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range m.AccountKeys {
		if m.IsWritableStatic(k) {
			add(k)
		}
	}
	for _, k := range lookups {
		add(k)
	}
	add(wrappedSOLAccount(wallet))
	return keys, nil
}

// bundleSimValue is simulateBundle's result value.
type bundleSimValue struct {
	TransactionResults []struct {
		simRun
		Pre  []*rpc.Account `json:"preExecutionAccounts"`
		Post []*rpc.Account `json:"postExecutionAccounts"`
	} `json:"transactionResults"`
}

// simulateBundle calls simulateBundle asking for the pre- and post-state of
// watch[i] around transaction i, without signature verification (the
// transactions are unsigned by keeper; see Client.SimulateSequence) and on
// their own blockhashes.
func (s *simulator) simulateBundle(ctx context.Context, raws [][]byte, watch [][]solana.PublicKey) (*bundleSimValue, error) {
	enc := make([]string, len(raws))
	cfgs := make([]map[string]any, len(raws))
	for i, raw := range raws {
		enc[i] = base64.StdEncoding.EncodeToString(raw)
		cfgs[i] = map[string]any{"addresses": watch[i], "encoding": "base64"}
	}
	cfg := map[string]any{
		"preExecutionAccountsConfigs":  cfgs,
		"postExecutionAccountsConfigs": cfgs,
		"transactionEncoding":          "base64",
		"skipSigVerify":                true,
		"replaceRecentBlockhash":       false,
		"simulationBank":               map[string]any{"commitment": map[string]any{"commitment": string(s.reads.commitment)}},
	}
	out, err := callJSON[valueOf[*bundleSimValue]](ctx, s.bundleSims, "simulateBundle", []any{map[string]any{"encodedTransactions": enc}, cfg})
	var re *RPCError
	if errors.As(err, &re) && re.Code == codeMethodNotFound {
		s.bundleSimOff.Store(true)
		s.log.Info("The bundle simulation endpoint has no simulateBundle; later transactions of a bundle are bounded statically", "endpoint", re.Endpoint)
		return nil, ErrBundleSimUnavailable
	}
	if err != nil {
		return nil, err
	}
	if out.Value == nil {
		return nil, fmt.Errorf("simulateBundle: empty answer")
	}
	return out.Value, nil
}

// sequenceResults turns a bundle simulation into one SimResult per
// transaction that ran.
func sequenceResults(v *bundleSimValue, wallet solana.PublicKey, fees []Fee) ([]*SimResult, error) {
	if len(v.TransactionResults) == 0 || len(v.TransactionResults) > len(fees) {
		return nil, fmt.Errorf("simulateBundle: %d results for %d transactions", len(v.TransactionResults), len(fees))
	}
	out := make([]*SimResult, 0, len(v.TransactionResults))
	for i, r := range v.TransactionResults {
		res, err := r.result(fees[i], i)
		out = append(out, res)
		if err != nil {
			return out, err
		}
		if len(r.Pre) == 0 || len(r.Pre) != len(r.Post) {
			return nil, fmt.Errorf("simulateBundle: transaction %d: %d pre- and %d post-execution accounts", i, len(r.Pre), len(r.Post))
		}
		pre, post := ownedPair(wallet, r.Pre, r.Post)
		if res.Outflows, err = outflows(wallet, pre, post); err != nil {
			return nil, fmt.Errorf("simulateBundle: transaction %d: %w", i, err)
		}
	}
	if len(out) < len(fees) {
		return out, fmt.Errorf("simulateBundle: %d results for %d transactions and no failure", len(out), len(fees))
	}
	return out, nil
}

// ownedPair keeps the wallet (index 0) and the accounts that are the
// wallet's token accounts before or after.
func ownedPair(wallet solana.PublicKey, pre, post []*rpc.Account) ([]*Account, []*Account) {
	p, q := []*Account{toAccount(pre[0])}, []*Account{toAccount(post[0])}
	for i := 1; i < len(pre); i++ {
		a, b := toAccount(pre[i]), toAccount(post[i])
		_, ownA := ownTokenAccount(wallet, a)
		_, ownB := ownTokenAccount(wallet, b)
		if ownA || ownB {
			p, q = append(p, a), append(q, b)
		}
	}
	return p, q
}
