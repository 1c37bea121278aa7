package chain_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
)

// jsonRPCServer serves one JSON-RPC method with a fixed result, recording
// the params of each call.
func jsonRPCServer(t *testing.T, result string, params *[]json.RawMessage) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		*params = append(*params, req.Params)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+result+`}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// plainClient returns a client of rpcURL with no retry.
func plainClient(t *testing.T, rpcURL string, edit func(*chain.Options)) *chain.Client {
	t.Helper()
	o := chain.Options{RPCURLs: []string{rpcURL}, Retry: chain.Retry{Rounds: 1}, PollOnly: true}
	if edit != nil {
		edit(&o)
	}
	return newClient(t, o)
}

func TestRecentPrioritizationFeesShapes(t *testing.T) {
	a, b := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	tests := []struct {
		name    string
		result  string
		keys    []solana.PublicKey
		want    []chain.PrioritizationFee
		wantErr string
	}{
		{"agave's answer, sorted by slot", `[{"slot":348127,"prioritizationFee":500},{"slot":348125,"prioritizationFee":0},{"slot":348126,"prioritizationFee":1000}]`,
			[]solana.PublicKey{a, b}, []chain.PrioritizationFee{{Slot: 348125}, {Slot: 348126, MicroLamports: 1000}, {Slot: 348127, MicroLamports: 500}}, ""},
		{"no block yet", `[]`, nil, []chain.PrioritizationFee{}, ""},
		{"an entry without its fee", `[{"slot":5}]`, nil, nil, "lacks slot or prioritizationFee"},
		{"not an array", `{"slot":5}`, nil, nil, "getRecentPrioritizationFees"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var params []json.RawMessage
			c := plainClient(t, jsonRPCServer(t, tt.result, &params), nil)
			got, err := c.Reads.RecentPrioritizationFees(context.Background(), tt.keys)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("RecentPrioritizationFees = %+v, %v; want %+v", got, err, tt.want)
			}
			keys := make([]string, len(tt.keys))
			for i, k := range tt.keys {
				keys[i] = k.String()
			}
			want, _ := json.Marshal([]any{keys})
			if len(params) != 1 || string(params[0]) != string(want) {
				t.Fatalf("params %s, want %s", params, want)
			}
		})
	}
	t.Run("too many accounts", func(t *testing.T) {
		var params []json.RawMessage
		c := plainClient(t, jsonRPCServer(t, `[]`, &params), nil)
		if _, err := c.Reads.RecentPrioritizationFees(context.Background(), make([]solana.PublicKey, 129)); err == nil || len(params) != 0 {
			t.Fatalf("129 accounts: err %v after %d requests, want an error and none", err, len(params))
		}
	})
}

// TestRecentPrioritizationFeesFromSim reads, through the client, what the
// simulator's fee market made of a load on an account.
func TestRecentPrioritizationFeesFromSim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, envConfig{})
		hot := solana.NewWallet().PublicKey()
		if err := e.sim.Market.SetLoad(e.sim.Ledger.Slot()+1, &chainsim.Load{Accounts: []solana.PublicKey{hot}, Prices: []uint64{20_000, 80_000}}); err != nil {
			t.Fatalf("SetLoad: %v", err)
		}
		waitSlots(6)
		ctx := context.Background()
		for _, keys := range [][]solana.PublicKey{{hot}, nil} {
			got, err := e.client.Reads.RecentPrioritizationFees(ctx, keys)
			if err != nil {
				t.Fatalf("RecentPrioritizationFees(%v): %v", keys, err)
			}
			want := e.sim.Ledger.RecentPrioritizationFees(keys)
			if len(got) < 4 || len(got) != len(want) {
				t.Fatalf("RecentPrioritizationFees(%v) = %+v, want %+v (4 or more blocks)", keys, got, want)
			}
			for i, f := range want {
				if got[i].Slot != f.Slot || got[i].MicroLamports != f.Fee || f.Fee < 20_000 || f.Fee > 80_000 {
					t.Fatalf("entry %d: %+v, want %+v, a price of the load", i, got[i], f)
				}
			}
		}
	})
}
