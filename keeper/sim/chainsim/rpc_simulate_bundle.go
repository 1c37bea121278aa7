package chainsim

import (
	"encoding/base64"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/internal/jsonrpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// simulateBundleParams is simulateBundle's first parameter.
type simulateBundleParams struct {
	EncodedTransactions []string `json:"encodedTransactions"`
}

// accountsConfig is one entry of pre/postExecutionAccountsConfigs.
type accountsConfig struct {
	Addresses []solana.PublicKey `json:"addresses"`
	Encoding  string             `json:"encoding"`
}

// simulateBundleConfig is simulateBundle's config object. When it is sent,
// both accounts-config arrays are required, one entry (or null) per
// transaction.
type simulateBundleConfig struct {
	Pre                    *[]*accountsConfig `json:"preExecutionAccountsConfigs"`
	Post                   *[]*accountsConfig `json:"postExecutionAccountsConfigs"`
	TransactionEncoding    string             `json:"transactionEncoding"`
	SimulationBank         any                `json:"simulationBank"`
	SkipSigVerify          bool               `json:"skipSigVerify"`
	ReplaceRecentBlockhash bool               `json:"replaceRecentBlockhash"`
}

// simulateBundle: [{encodedTransactions}, config] → {summary,
// transactionResults}, as Jito-Solana's RPC answers it.
func (a *sendAPI) simulateBundle(in jsonrpc.Call) (any, *jsonrpc.Error) {
	var (
		p   simulateBundleParams
		cfg *simulateBundleConfig
	)
	if rerr := in.NeedWithConfig(&p, &cfg); rerr != nil {
		return nil, rerr
	}
	opts, rerr := bundleSimOptions(len(p.EncodedTransactions), cfg)
	if rerr != nil {
		return nil, rerr
	}
	raws := make([][]byte, len(p.EncodedTransactions))
	for i, e := range p.EncodedTransactions {
		raw, err := base64.StdEncoding.DecodeString(e)
		if err != nil {
			return nil, jsonrpc.InvalidParams("transaction %d is not base64: %v", i, err)
		}
		raws[i] = raw
	}
	res, err := a.c.SimulateBundle(raws, opts)
	if err != nil {
		return nil, jsonrpc.InvalidParams("%v", err)
	}
	return contextValue(res.Slot, encodeBundleSimulation(res, raws)), nil
}

// bundleSimOptions checks a simulateBundle config and converts it.
func bundleSimOptions(n int, cfg *simulateBundleConfig) (BundleSimOptions, *jsonrpc.Error) {
	if cfg == nil {
		return BundleSimOptions{}, nil
	}
	if enc := cfg.TransactionEncoding; enc != "" && enc != "base64" {
		return BundleSimOptions{}, jsonrpc.InvalidParams("unsupported encoding: %s; only base64 is supported", enc)
	}
	if cfg.Pre == nil || cfg.Post == nil {
		return BundleSimOptions{}, jsonrpc.InvalidParams("preExecutionAccountsConfigs and postExecutionAccountsConfigs are required")
	}
	if len(*cfg.Pre) != n || len(*cfg.Post) != n {
		return BundleSimOptions{}, jsonrpc.InvalidParams("pre/post_execution_accounts_configs must be equal in length to the number of transactions")
	}
	opts := BundleSimOptions{SkipSigVerify: cfg.SkipSigVerify, ReplaceRecentBlockhash: cfg.ReplaceRecentBlockhash}
	if m, ok := cfg.SimulationBank.(map[string]any); ok {
		if c, ok := m["commitment"].(map[string]any); ok {
			cm, rerr := parseCommitment(stringOf(c["commitment"]), "")
			if rerr != nil {
				return opts, rerr
			}
			opts.Commitment = cm
		}
	}
	var rerr *jsonrpc.Error
	if opts.Pre, rerr = accountLists(*cfg.Pre); rerr != nil {
		return opts, rerr
	}
	opts.Post, rerr = accountLists(*cfg.Post)
	return opts, rerr
}

// accountLists converts accounts configs, refusing encodings other than
// base64.
func accountLists(cfgs []*accountsConfig) ([][]solana.PublicKey, *jsonrpc.Error) {
	out := make([][]solana.PublicKey, len(cfgs))
	for i, c := range cfgs {
		if c == nil {
			continue
		}
		if c.Encoding != "" && c.Encoding != "base64" {
			return nil, jsonrpc.InvalidParams("unsupported accounts encoding %q; only base64 is supported", c.Encoding)
		}
		out[i] = append([]solana.PublicKey{}, c.Addresses...)
	}
	return out, nil
}

func stringOf(v any) string {
	s, _ := v.(string)
	return s
}

// encodeBundleSimulation returns the wire form of a bundle simulation.
func encodeBundleSimulation(res BundleSimResult, raws [][]byte) map[string]any {
	results := make([]map[string]any, len(res.Results))
	for i, r := range res.Results {
		results[i] = map[string]any{
			"err":                   svm.WireErr(r.Err),
			"logs":                  nonNilLogs(r.Logs),
			"preExecutionAccounts":  wireAccounts(r.Pre),
			"postExecutionAccounts": wireAccounts(r.Post),
			"unitsConsumed":         r.UnitsConsumed,
			"returnData":            nil,
			"fee":                   r.Fee,
		}
	}
	var summary any = "succeeded"
	if res.Failed >= 0 {
		failed := res.Results[res.Failed]
		var sig any
		if t, err := svm.ParseTx(raws[res.Failed]); err == nil {
			sig = t.ID().String()
		}
		summary = map[string]any{"failed": map[string]any{
			"error":        map[string]any{"TransactionFailure": []any{sig, failed.Err.Error()}},
			"tx_signature": sig,
		}}
	}
	return map[string]any{"summary": summary, "transactionResults": results}
}

// wireAccounts encodes accounts in base64; nil stays null.
func wireAccounts(accts []*svm.Account) any {
	if accts == nil {
		return nil
	}
	out := make([]*wireAccount, len(accts))
	for i, a := range accts {
		out[i], _ = encodeAccount(a, "base64", nil)
	}
	return out
}
