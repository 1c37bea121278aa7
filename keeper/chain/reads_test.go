package chain

import (
	"bytes"
	"testing"

	"github.com/gagliardetto/solana-go"
)

func TestMultipleAccountsBatches(t *testing.T) {
	fc := newFakeChain(150)
	c, _ := newMemClient(t, fc, nil)
	keys := make([]solana.PublicKey, 150)
	for i := range keys {
		keys[i] = solana.NewWallet().PublicKey()
		if i%3 != 0 {
			fc.accounts[keys[i]] = &Account{Lamports: uint64(i), Owner: solana.SystemProgramID, Data: []byte{byte(i), 1, 2}}
		}
	}
	data, err := c.MultipleAccounts(t.Context(), keys)
	if err != nil {
		t.Fatalf("MultipleAccounts: %v", err)
	}
	calls := fc.callsOf("getMultipleAccounts")
	if len(calls) != 2 || len(calls[0].params[0].([]any)) != 100 || len(calls[1].params[0].([]any)) != 50 {
		t.Fatalf("%d calls, want batches of 100 and 50", len(calls))
	}
	if o := calls[0].params[1].(map[string]any); o["encoding"] != "base64" || o["commitment"] != "confirmed" {
		t.Errorf("options %v", o)
	}
	for i, d := range data {
		if i%3 == 0 {
			if d != nil {
				t.Errorf("account %d: %v, want nil (missing)", i, d)
			}
			continue
		}
		if !bytes.Equal(d, []byte{byte(i), 1, 2}) {
			t.Errorf("account %d: %v", i, d)
		}
	}
	accs, err := c.Accounts(t.Context(), keys[1:2])
	if err != nil || accs[0].Lamports != 1 || accs[0].Owner != solana.SystemProgramID {
		t.Errorf("Accounts = %+v, %v", accs, err)
	}
}

func TestReads(t *testing.T) {
	fc := newFakeChain(150)
	c, _ := newMemClient(t, fc, func(o *Options) { o.Commitment = "finalized" })
	wallet := solana.NewWallet().PublicKey()
	fc.accounts[wallet] = &Account{Lamports: 42}
	if got, err := c.Balance(t.Context(), wallet); err != nil || got != 42 {
		t.Errorf("Balance = %d, %v; want 42", got, err)
	}
	bh, err := c.Reads.LatestBlockhash(t.Context())
	if err != nil || bh.Hash.IsZero() || bh.LastValidBlockHeight != 150 {
		t.Fatalf("LatestBlockhash = %+v, %v", bh, err)
	}
	if ok, err := c.Reads.BlockhashValid(t.Context(), bh.Hash); err != nil || !ok {
		t.Errorf("BlockhashValid(latest) = %v, %v; want true", ok, err)
	}
	if ok, err := c.Reads.BlockhashValid(t.Context(), solana.Hash{9}); err != nil || ok {
		t.Errorf("BlockhashValid(unknown) = %v, %v; want false", ok, err)
	}
	for _, m := range []string{"getBalance", "getLatestBlockhash", "isBlockhashValid"} {
		p := fc.callsOf(m)[0].params
		o := p[len(p)-1].(map[string]any)
		if o["commitment"] != "finalized" {
			t.Errorf("%s commitment %v, want finalized", m, o["commitment"])
		}
	}
}
