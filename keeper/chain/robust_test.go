package chain

import (
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"
)

// flaky fails every other request with 503 before it reaches h.
func flaky(h http.Handler) http.Handler {
	var mu sync.Mutex
	n := 0
	return handlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		fail := n%2 == 1
		mu.Unlock()
		if fail {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func TestLandsThroughFlakyEndpoints(t *testing.T) {
	t.Run("rpc", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fc := newFakeChain(150)
			c, _ := newMemClient(t, fc, func(o *Options) {
				o.HTTPClient = &http.Client{Transport: memTransport{"rpc.test": flaky(fc), "jito.test": flaky(fc)}}
			})
			key, bh := newKey(t), fc.newBlockhash()
			txs := []Signed{transferTx(t, key, bh, 1), transferTx(t, key, bh, 2)}
			res, err := c.SendAndConfirm(withTimeout(t, time.Hour), txs)
			if err != nil || res.Outcome != OutcomeLanded {
				t.Fatalf("result %+v, err %v; want landed despite 503s", res, err)
			}
		})
	})
	t.Run("bundle", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fc := newFakeChain(150)
			c, _ := newMemClient(t, fc, func(o *Options) {
				o.HTTPClient = &http.Client{Transport: memTransport{"rpc.test": flaky(fc), "jito.test": flaky(fc)}}
			})
			key, bh := newKey(t), fc.newBlockhash()
			var asked []uint64
			res, err := c.SendBundle(withTimeout(t, time.Hour), []Signed{transferTx(t, key, bh, 1)}, tipper(key, &asked), TipPolicy{Floor: 1000, Cap: 1000})
			if err != nil || res.Outcome != OutcomeLanded {
				t.Fatalf("result %+v, err %v; want landed despite 503s", res, err)
			}
			if len(fc.sentBundles()) != 1 || len(asked) != 1 {
				t.Errorf("%d bundles, %d tips; want the first one retried, not replaced", len(fc.sentBundles()), len(asked))
			}
		})
	})
}

func TestBundleLandedOnEngineBeforeOurRPC(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc := newFakeChain(150)
		fc.statusLag = 15 // our node shows statuses 6 s late
		c, _ := newMemClient(t, fc, nil)
		key, bh := newKey(t), fc.newBlockhash()
		var asked []uint64
		res, err := c.SendBundle(withTimeout(t, time.Hour), []Signed{transferTx(t, key, bh, 1)}, tipper(key, &asked), TipPolicy{Floor: 1000, Cap: 8000, RaiseAfter: time.Second})
		if err != nil || res.Outcome != OutcomeLanded || res.Bundle.LandedTip != 0 {
			t.Fatalf("result %+v, err %v; want landed with the first tip", res, err)
		}
		if n := len(fc.sentBundles()); n != 1 {
			t.Errorf("%d bundles sent, want 1: an engine-landed bundle is not dropped", n)
		}
		if len(fc.callsOf("getBundleStatuses")) == 0 {
			t.Error("the engine's landed record was not cross-checked")
		}
		if want := fc.start.Add(time.Duration(1+1+15) * fc.slotTime); time.Now().Before(want) {
			t.Errorf("reported landed at %v, before our node confirmed it", time.Since(fc.start))
		}
	})
}

func TestBuildTipMessage(t *testing.T) {
	payer, tip := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	bh := solana.Hash{3}
	msg, err := BuildTipMessage(payer, tip, 12_345, bh)
	if err != nil {
		t.Fatal(err)
	}
	var m solana.Message
	if err := m.UnmarshalWithDecoder(binDecoder(msg)); err != nil {
		t.Fatal(err)
	}
	if m.IsVersioned() || m.Header.NumRequiredSignatures != 1 || len(m.Instructions) != 1 || m.RecentBlockhash != bh {
		t.Fatalf("message %+v, want legacy, one signer, one instruction", m)
	}
	ix := m.Instructions[0]
	keys := m.AccountKeys
	if keys[0] != payer || keys[ix.Accounts[1]] != tip || !keys[ix.ProgramIDIndex].Equals(solana.SystemProgramID) {
		t.Errorf("keys %v, want payer first and a System transfer to the tip account", keys)
	}
	if got, want := []byte(ix.Data), []byte{2, 0, 0, 0, 0x39, 0x30, 0, 0, 0, 0, 0, 0}; string(got) != string(want) {
		t.Errorf("data %v, want Transfer of 12,345 lamports %v", got, want)
	}
	for name, args := range map[string][4]any{
		"zero lamports": {payer, tip, uint64(0), bh},
		"same key":      {payer, payer, uint64(1000), bh},
		"no blockhash":  {payer, tip, uint64(1000), solana.Hash{}},
		"no payer":      {solana.PublicKey{}, tip, uint64(1000), bh},
	} {
		if _, err := BuildTipMessage(args[0].(solana.PublicKey), args[1].(solana.PublicKey), args[2].(uint64), args[3].(solana.Hash)); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func TestConcurrentSubmissions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fc := newFakeChain(150)
		c, _ := newMemClient(t, fc, nil)
		key, bh := newKey(t), fc.newBlockhash()
		var wg sync.WaitGroup
		results := make([]Result, 4)
		errs := make([]error, 4)
		txs := make([]Signed, 4)
		for i := range txs {
			txs[i] = transferTx(t, key, bh, uint64(i+1))
			fc.dropSends[txs[i].Signature] = i // each needs a different number of rebroadcasts
		}
		for i, s := range txs {
			wg.Go(func() {
				if i%2 == 0 {
					results[i], errs[i] = c.SendAndConfirm(t.Context(), []Signed{s})
					return
				}
				var asked []uint64
				results[i], errs[i] = c.SendBundle(t.Context(), []Signed{s}, tipper(key, &asked), TipPolicy{Floor: 1000, Cap: 1000})
			})
		}
		wg.Wait()
		for i := range 4 {
			if errs[i] != nil || results[i].Outcome != OutcomeLanded {
				t.Errorf("submission %d: %+v, %v; want landed", i, results[i], errs[i])
			}
		}
	})
}
