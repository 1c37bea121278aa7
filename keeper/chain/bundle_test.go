package chain

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// bundleFixture is a fake cluster, a client and n market transactions.
type bundleFixture struct {
	fc    *fakeChain
	c     *Client
	key   solana.PrivateKey
	txs   []Signed
	asked []uint64
}

func newBundleFixture(t *testing.T, n int, lifetime uint64) *bundleFixture {
	f := &bundleFixture{fc: newFakeChain(lifetime), key: newKey(t)}
	f.c, _ = newMemClient(t, f.fc, nil)
	bh := f.fc.newBlockhash()
	for i := range n {
		f.txs = append(f.txs, transferTx(t, f.key, bh, uint64(i+1)))
	}
	return f
}

func (f *bundleFixture) send(t *testing.T, pol TipPolicy) (Result, error) {
	return f.c.SendBundle(withTimeout(t, time.Hour), f.txs, tipper(f.key, &f.asked), pol)
}

func TestSendBundleLandsAtomicallyWithTipLast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newBundleFixture(t, 2, 150)
		res, err := f.send(t, TipPolicy{Floor: 1000, Cap: 10_000})
		if err != nil {
			t.Fatalf("SendBundle: %v", err)
		}
		if res.Outcome != OutcomeLanded || res.Route != RouteBundle {
			t.Fatalf("result %+v, want landed by bundle", res)
		}
		sent := f.fc.sentBundles()
		if len(sent) != 1 {
			t.Fatalf("%d bundles sent, want 1", len(sent))
		}
		b := sent[0]
		tip := res.Bundle.Tips[0]
		want := []solana.Signature{f.txs[0].Signature, f.txs[1].Signature, tip.Signature}
		if !slices.Equal(b.sigs, want) {
			t.Errorf("bundle order %v, want market transactions then the tip %v", b.sigs, want)
		}
		if b.tip != 1000 || !slices.Contains(f.fc.tipAccounts, b.tipTo) || tip.Account != b.tipTo {
			t.Errorf("tip %d to %s (reported %s), want 1000 to a tip account", b.tip, b.tipTo, tip.Account)
		}
		if tip.BundleID != b.id || !tip.Accepted || res.Bundle.LandedTip != 0 {
			t.Errorf("report %+v, want the engine's id %s accepted and landed", res.Bundle, b.id)
		}
		for i, r := range res.Txs {
			if r.State != TxLanded || r.Slot != b.slot {
				t.Errorf("tx %d: %v in slot %d, want landed with the bundle in slot %d", i, r.State, r.Slot, b.slot)
			}
		}
		if !f.fc.isLanded(tip.Signature) {
			t.Error("tip transaction did not land with the bundle")
		}
		for _, c := range f.fc.callsOf("sendBundle") {
			if c.path != jitoBundlesPath || c.auth != "jito-uuid-secret" {
				t.Errorf("sendBundle to %q with auth %q", c.path, c.auth)
			}
		}
		if n := len(f.fc.callsOf("sendTransaction")); n != 0 {
			t.Errorf("%d RPC sends, want none", n)
		}
	})
}

func TestSendBundleRaisesTipAfterDrops(t *testing.T) {
	for _, state := range []string{bundleFailed, bundlePending} {
		t.Run("under-tipped bundles "+state, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newBundleFixture(t, 3, 150)
				f.fc.minTip, f.fc.underTipState = 5000, state
				res, err := f.send(t, TipPolicy{Floor: 1000, Cap: 100_000, RaiseAfter: 3 * time.Second})
				if err != nil || res.Outcome != OutcomeLanded {
					t.Fatalf("result %+v, err %v; want landed", res, err)
				}
				if want := []uint64{1000, 2000, 4000, 8000}; !slices.Equal(f.asked, want) {
					t.Errorf("tips asked %v, want %v", f.asked, want)
				}
				if res.Bundle.LandedTip != 3 || len(res.Bundle.Tips) != 4 {
					t.Errorf("landed tip %d of %d, want the 4th", res.Bundle.LandedTip, len(res.Bundle.Tips))
				}
				for i, tip := range res.Bundle.Tips[:3] {
					if f.fc.isLanded(tip.Signature) {
						t.Errorf("dropped bundle %d's tip landed", i)
					}
				}
				if state == bundlePending {
					assertSpacing(t, f.fc.callsOf("sendBundle"), 3*time.Second)
				}
			})
		})
	}
}

// assertSpacing asserts consecutive calls are at least d apart.
func assertSpacing(t *testing.T, calls []fakeCall, d time.Duration) {
	t.Helper()
	for i := 1; i < len(calls); i++ {
		if gap := calls[i].at.Sub(calls[i-1].at); gap < d {
			t.Errorf("resubmitted after %v, want at least %v", gap, d)
		}
	}
}

func TestSendBundleNeverLandsBeforeExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newBundleFixture(t, 2, 20)
		f.fc.minTip = 1_000_000 // above the cap: every bundle is dropped
		res, err := f.send(t, TipPolicy{Floor: 1000, Cap: 3000})
		if err != nil {
			t.Fatalf("SendBundle: %v", err)
		}
		if res.Outcome != OutcomeExpired || res.Route != RouteBundle || res.Bundle.LandedTip != -1 {
			t.Fatalf("result %+v, want expired by bundle, no tip landed", res)
		}
		if want := []uint64{1000, 2000, 3000}; !slices.Equal(f.asked, want) {
			t.Errorf("tips asked %v, want %v then resubmission at the cap", f.asked, want)
		}
		sent := f.fc.sentBundles()
		if len(sent) <= 3 {
			t.Errorf("%d bundles sent, want resubmissions at the cap until expiry", len(sent))
		}
		for _, b := range sent {
			if b.tip > 3000 {
				t.Errorf("tip %d above the cap", b.tip)
			}
		}
		for i, tx := range f.txs {
			if f.fc.isLanded(tx.Signature) || res.Txs[i].State != TxExpired {
				t.Errorf("tx %d: %v, landed %v; want expired, not landed", i, res.Txs[i].State, f.fc.isLanded(tx.Signature))
			}
		}
		assertFinalCheck(t, f.fc, f.fc.start.Add(21*f.fc.slotTime))
	})
}

func TestSendBundleFallsBackAtCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newBundleFixture(t, 2, 150)
		f.fc.minTip = 1_000_000
		res, err := f.send(t, TipPolicy{Floor: 1000, Cap: 2000, FallbackRPC: true})
		if err != nil {
			t.Fatalf("SendBundle: %v", err)
		}
		if res.Outcome != OutcomeLanded || res.Route != RouteRPCFallback || res.Bundle == nil || res.Note == "" {
			t.Fatalf("result %+v, want landed through the rpc fallback with a note", res)
		}
		if want := []uint64{1000, 2000}; !slices.Equal(f.asked, want) {
			t.Errorf("tips asked %v, want %v", f.asked, want)
		}
		if res.Bundle.LandedTip != -1 {
			t.Errorf("landed tip %d, want none", res.Bundle.LandedTip)
		}
		for i, tx := range f.txs {
			if f.fc.sendCount(tx.Signature) == 0 || res.Txs[i].State != TxLanded {
				t.Errorf("tx %d: sent %d times by rpc, state %v", i, f.fc.sendCount(tx.Signature), res.Txs[i].State)
			}
		}
	})
}

func TestSendBundleFull(t *testing.T) {
	tests := []struct {
		name     string
		fallback bool
		want     Outcome
		route    Route
		wantErr  error
	}{
		{"refused", false, OutcomeRefused, RouteBundle, ErrBundleFull},
		{"rpc fallback", true, OutcomeLanded, RouteRPCFallback, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newBundleFixture(t, 5, 150)
				res, err := f.send(t, TipPolicy{Floor: 1000, Cap: 2000, FallbackRPC: tt.fallback})
				if !errors.Is(err, tt.wantErr) || res.Outcome != tt.want || res.Route != tt.route || res.Note == "" {
					t.Fatalf("result %+v, err %v; want %v by %v, err %v, with a note", res, err, tt.want, tt.route, tt.wantErr)
				}
				if n := len(f.fc.callsOf("sendBundle")); n != 0 || len(f.asked) != 0 {
					t.Errorf("%d bundles sent, %d tips made; want none", n, len(f.asked))
				}
				sends := len(f.fc.callsOf("sendTransaction"))
				if tt.fallback != (sends >= 5) {
					t.Errorf("%d rpc sends with fallback %v", sends, tt.fallback)
				}
			})
		})
	}
}

func TestSendBundleRefusesBadTip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newBundleFixture(t, 1, 150)
		cheat := func(ctx context.Context, acct solana.PublicKey, lamports uint64, bh solana.Hash) (Signed, error) {
			return tipper(f.key, &f.asked)(ctx, acct, lamports+1, bh) // not what was asked
		}
		res, err := f.c.SendBundle(t.Context(), f.txs, cheat, TipPolicy{Floor: 1000, Cap: 2000})
		if err == nil || res.Outcome != OutcomeRefused {
			t.Fatalf("result %+v, err %v; want refused", res, err)
		}
		if n := len(f.fc.callsOf("sendBundle")); n != 0 {
			t.Errorf("%d bundles sent, want none", n)
		}
	})
}

func TestSendBundleBadInput(t *testing.T) {
	f := newBundleFixture(t, 1, 150)
	noJito, _ := newMemClient(t, f.fc, func(o *Options) { o.JitoURL = "" })
	tip := tipper(f.key, &f.asked)
	tests := []struct {
		name string
		c    *Client
		tip  TipFunc
		pol  TipPolicy
		want string
	}{
		{"no jito", noJito, tip, TipPolicy{Floor: 1000, Cap: 1000}, "no jito url"},
		{"no tip func", f.c, nil, TipPolicy{Floor: 1000, Cap: 1000}, "no tip function"},
		{"floor below minimum", f.c, tip, TipPolicy{Floor: 999, Cap: 1000}, "below the engine's minimum"},
		{"cap below floor", f.c, tip, TipPolicy{Floor: 2000, Cap: 1000}, "below the floor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.c.SendBundle(t.Context(), f.txs, tt.tip, tt.pol)
			if err == nil || !contains(err.Error(), tt.want) || res.Outcome != OutcomeUnknown {
				t.Fatalf("err = %v, outcome %v; want %q", err, res.Outcome, tt.want)
			}
		})
	}
	if len(f.fc.calls) != 0 {
		t.Errorf("%d requests made, want none", len(f.fc.calls))
	}
}

func TestTipPolicyNext(t *testing.T) {
	tests := []struct {
		pol  TipPolicy
		cur  uint64
		want uint64
	}{
		{TipPolicy{Cap: 10_000, RaisePercent: 100}, 1000, 2000},
		{TipPolicy{Cap: 10_000, RaisePercent: 50}, 1000, 1500},
		{TipPolicy{Cap: 10_000, RaisePercent: 100}, 6000, 10_000},
		{TipPolicy{Cap: 10_000, RaisePercent: 100}, 10_000, 10_000},
		{TipPolicy{Cap: 10_000, RaisePercent: 1}, 50, 51},
	}
	for _, tt := range tests {
		if got := tt.pol.next(tt.cur); got != tt.want {
			t.Errorf("next(%d) with %+v = %d, want %d", tt.cur, tt.pol, got, tt.want)
		}
	}
}

func TestBundleID(t *testing.T) {
	// Reference: printf '%s' "<sig1>,<sig2>" | sha256sum.
	a := solana.MustSignatureFromBase58("5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW")
	b := solana.MustSignatureFromBase58("2jg9xbGLtZRsiJBrDWQnz33JuLjDkiKSZuxZPdjJ3qrJbMeTEerXFAKynkPW63J88nq63cvosDNRsg9VqHtGixvP")
	tests := []struct {
		sigs []solana.Signature
		want string
	}{
		{[]solana.Signature{a, b}, "4d09d13462983c5e0439327a103447cbb0fa30c8ffe6b02564fcb5ffd35acebb"},
		{nil, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}, // sha256 of ""
	}
	for _, tt := range tests {
		if got := BundleID(tt.sigs); got != tt.want {
			t.Errorf("BundleID(%v) = %s, want %s", tt.sigs, got, tt.want)
		}
	}
}

// TestTipAccountsAreKept: the tip accounts asked for ahead are the ones the
// first bundle tips, without asking the engine again; a failed request
// keeps nothing, and a client without a block engine says so.
func TestTipAccountsAreKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newBundleFixture(t, 1, 150)
		accounts := f.fc.tipAccounts
		f.fc.tipAccounts = nil // the engine answers an empty list
		if _, err := f.c.TipAccounts(t.Context()); err == nil {
			t.Fatal("TipAccounts of an empty list: no error")
		}
		f.fc.tipAccounts = accounts
		for range 2 {
			if got, err := f.c.TipAccounts(t.Context()); err != nil || !slices.Equal(got, accounts) {
				t.Fatalf("TipAccounts: %v, %v; want %v", got, err, accounts)
			}
		}
		if n := len(f.fc.callsOf("getTipAccounts")); n != 2 {
			t.Fatalf("getTipAccounts asked %d times, want twice (the failure, then once)", n)
		}
		res, err := f.send(t, TipPolicy{Floor: 1000, Cap: 10_000})
		if err != nil || res.Outcome != OutcomeLanded {
			t.Fatalf("SendBundle: %v, %v", res.Outcome, err)
		}
		if n := len(f.fc.callsOf("getTipAccounts")); n != 2 {
			t.Errorf("getTipAccounts asked %d times, want no more for the bundle", n)
		}
		if to := f.fc.sentBundles()[0].tipTo; !slices.Contains(accounts, to) {
			t.Errorf("tipped %s, not a tip account", to)
		}
		noJito, _ := newMemClient(t, f.fc, func(o *Options) { o.JitoURL = "" })
		if _, err := noJito.TipAccounts(t.Context()); err == nil {
			t.Error("TipAccounts without a block engine: no error")
		}
	})
}

// TestPinnedTipAccountsAreNeverAsked: with Options.TipAccounts set, the
// client tips one of them and never asks the engine.
func TestPinnedTipAccountsAreNeverAsked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newBundleFixture(t, 1, 150)
		pinned := f.fc.tipAccounts[2:3]
		f.c, _ = newMemClient(t, f.fc, func(o *Options) { o.TipAccounts = pinned })
		if got, err := f.c.TipAccounts(t.Context()); err != nil || !slices.Equal(got, pinned) {
			t.Fatalf("TipAccounts: %v, %v; want the pinned %v", got, err, pinned)
		}
		res, err := f.send(t, TipPolicy{Floor: 1000, Cap: 10_000})
		if err != nil || res.Outcome != OutcomeLanded {
			t.Fatalf("SendBundle: %v, %v", res.Outcome, err)
		}
		if n := len(f.fc.callsOf("getTipAccounts")); n != 0 {
			t.Errorf("getTipAccounts asked %d times, want never", n)
		}
		if to := f.fc.sentBundles()[0].tipTo; to != pinned[0] {
			t.Errorf("tipped %s, want the pinned %s", to, pinned[0])
		}
	})
}

// TestOldTipAccountsAreRefreshed: the engine's tip accounts, an hour old,
// are asked again in the background once the next bundle is accepted (not
// before its send); a failed refresh keeps those in use and is tried again
// a minute later; a new answer tips the bundles after it; pinned accounts
// are never asked for.
func TestOldTipAccountsAreRefreshed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newBundleFixture(t, 1, 150)
		old := f.fc.tipAccounts
		asked := func() int { return len(f.fc.callsOf("getTipAccounts")) }
		check := func(k uint64, tips []solana.PublicKey, wantAsked int) {
			t.Helper()
			if to := landOneBundle(t, f, k); !slices.Contains(tips, to) {
				t.Errorf("bundle %d tipped %s, want one of %v", k, to, tips)
			}
			if n := asked(); n != wantAsked {
				t.Errorf("after bundle %d: getTipAccounts asked %d times, want %d", k, n, wantAsked)
			}
		}
		check(1, old, 1)
		time.Sleep(tipAccountsMaxAge - time.Second)
		check(2, old, 1) // not old yet
		time.Sleep(time.Second)
		f.fc.tipAnswer = []string{"not an address"}
		check(3, old, 2) // old: asked after the send; the answer is refused
		check(4, old, 2) // a minute before the next try
		time.Sleep(tipAccountsRetry)
		renewed := []solana.PublicKey{solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()}
		f.fc.tipAnswer = []string{renewed[0].String(), renewed[1].String()}
		f.fc.tipAccounts = append(slices.Clone(renewed), old...) // the old ones still take tips meanwhile
		check(5, old, 3)
		f.fc.tipAnswer, f.fc.tipAccounts = nil, renewed
		check(6, renewed, 3)
		if got, err := f.c.TipAccounts(t.Context()); err != nil || !slices.Equal(got, renewed) {
			t.Errorf("TipAccounts: %v, %v; want the engine's new answer %v", got, err, renewed)
		}

		pinned := newBundleFixture(t, 1, 150)
		pinned.c, _ = newMemClient(t, pinned.fc, func(o *Options) { o.TipAccounts = pinned.fc.tipAccounts[:1] })
		time.Sleep(2 * tipAccountsMaxAge)
		landOneBundle(t, pinned, 1)
		if n := len(pinned.fc.callsOf("getTipAccounts")); n != 0 {
			t.Errorf("pinned tip accounts: getTipAccounts asked %d times, want never", n)
		}
	})
}

// TestPublishedTipAccounts: the engine's published tip accounts are used
// from the first bundle without asking, and replaced by the engine's own
// answer once a bundle was accepted; pinned accounts win over them.
func TestPublishedTipAccounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newBundleFixture(t, 1, 150)
		published := f.fc.tipAccounts[:2]
		f.c, _ = newMemClient(t, f.fc, func(o *Options) { o.KnownTipAccounts = published })
		if got, err := f.c.TipAccounts(t.Context()); err != nil || !slices.Equal(got, published) {
			t.Fatalf("TipAccounts: %v, %v; want the published %v", got, err, published)
		}
		if to := landOneBundle(t, f, 1); !slices.Contains(published, to) {
			t.Errorf("tipped %s, want one of the published accounts", to)
		}
		synctest.Wait()
		if n := len(f.fc.callsOf("getTipAccounts")); n != 1 {
			t.Fatalf("getTipAccounts asked %d times after the first bundle, want once (the refresh)", n)
		}
		if got, err := f.c.TipAccounts(t.Context()); err != nil || !slices.Equal(got, f.fc.tipAccounts) {
			t.Errorf("TipAccounts after the refresh: %v, %v; want the engine's %v", got, err, f.fc.tipAccounts)
		}

		pinned := newBundleFixture(t, 1, 150)
		pinned.c, _ = newMemClient(t, pinned.fc, func(o *Options) {
			o.TipAccounts, o.KnownTipAccounts = pinned.fc.tipAccounts[:1], published
		})
		if got, err := pinned.c.TipAccounts(t.Context()); err != nil || !slices.Equal(got, pinned.fc.tipAccounts[:1]) {
			t.Errorf("TipAccounts pinned and published: %v, %v; want the pinned", got, err)
		}
	})
}

// TestPublishedTipAccountsOfMainnetEngines: a mainnet block engine's URL
// gets the published accounts, any other none.
func TestPublishedTipAccountsOfMainnetEngines(t *testing.T) {
	for url, want := range map[string]int{
		"https://mainnet.block-engine.jito.wtf":            8,
		"https://frankfurt.mainnet.block-engine.jito.wtf/": 8,
		"https://ny.mainnet.block-engine.jito.wtf/api/v1":  8,
		"https://testnet.block-engine.jito.wtf":            0,
		"http://127.0.0.1:7072":                            0,
		"https://block-engine.jito.wtf.example.com":        0,
		"": 0,
	} {
		if got := PublishedTipAccounts(url); len(got) != want {
			t.Errorf("PublishedTipAccounts(%q) = %d accounts, want %d", url, len(got), want)
		}
	}
}

// TestCloseEndsATipRefresh: Close calls off a background refresh of the tip
// accounts in flight and waits for it, without waiting out its timeout.
func TestCloseEndsATipRefresh(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newBundleFixture(t, 1, 150)
		held := make(chan struct{}, 1)
		holdTips := handlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"getTipAccounts"`)) && len(f.fc.callsOf("getTipAccounts")) > 0 {
				held <- struct{}{}
				<-r.Context().Done() // the engine never answers the refresh
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			f.fc.ServeHTTP(w, r)
		})
		f.c, _ = newMemClient(t, f.fc, func(o *Options) {
			o.HTTPClient = &http.Client{Transport: memTransport{"rpc.test": f.fc, "jito.test": holdTips}}
		})
		landOneBundle(t, f, 1)
		time.Sleep(tipAccountsMaxAge)
		landOneBundle(t, f, 2)
		select {
		case <-held:
		default:
			t.Fatal("no refresh of the tip accounts was asked")
		}
		start := time.Now()
		if err := f.c.Close(); err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("Close waited %s for the refresh, want no wait", waited)
		}
	})
}

// landOneBundle lands a bundle of one new transaction of f's key, waits for
// what it set off to end, and returns the tip account it paid.
func landOneBundle(t *testing.T, f *bundleFixture, k uint64) solana.PublicKey {
	t.Helper()
	f.txs = []Signed{transferTx(t, f.key, f.fc.newBlockhash(), k)}
	res, err := f.send(t, TipPolicy{Floor: 1000, Cap: 10_000})
	if err != nil || res.Outcome != OutcomeLanded {
		t.Fatalf("SendBundle %d: %v, %v", k, res.Outcome, err)
	}
	synctest.Wait()
	return res.Bundle.Tips[len(res.Bundle.Tips)-1].Account
}

// TestTipAccountsAreAskedOnceAtATime: while a request for the tip accounts
// is out, another caller waits for its answer instead of asking again, and
// gives up when its own context ends; when the request fails, those who
// waited get its error without a second request; when it ended because
// its asker's context did, the next caller asks again.
func TestTipAccountsAreAskedOnceAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newBundleFixture(t, 1, 150)
		release := make(chan struct{})
		f.fc.hook = func(method string) {
			if method == "getTipAccounts" {
				<-release
			}
		}
		accounts := f.fc.tipAccounts
		f.fc.tipAccounts = nil // the held request will be answered with an empty list
		first := make(chan error, 1)
		go func() { _, err := f.c.TipAccounts(t.Context()); first <- err }()
		synctest.Wait()
		short, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if _, err := f.c.TipAccounts(short); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a caller whose context ends while the request is out: %v, want its deadline", err)
		}
		waiter := make(chan error, 1)
		go func() { _, err := f.c.TipAccounts(t.Context()); waiter <- err }()
		synctest.Wait()
		close(release)
		if err := <-first; err == nil {
			t.Fatal("the held request answered an empty list without an error")
		}
		if err := <-waiter; err == nil || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the waiter got %v, want the request's error", err)
		}
		if n := len(f.fc.callsOf("getTipAccounts")); n != 1 {
			t.Errorf("getTipAccounts asked %d times, want once", n)
		}
		f.fc.tipAccounts = accounts
		ended, end := context.WithCancel(t.Context())
		end()
		if _, err := f.c.TipAccounts(ended); err == nil {
			t.Fatal("TipAccounts with an ended context: no error")
		}
		if got, err := f.c.TipAccounts(t.Context()); err != nil || !slices.Equal(got, accounts) {
			t.Errorf("after a request its asker called off: %v, %v; want the accounts", got, err)
		}
	})
}

// TestBundleNotesProveALanding: the node's notifications prove a bundle
// landed once every market transaction was notified without an error and
// so was one of its tips (which tells which paid); anything less leaves it
// to a status read.
func TestBundleNotesProveALanding(t *testing.T) {
	tx0, tx1, tip0, tip1 := solana.Signature{1}, solana.Signature{2}, solana.Signature{3}, solana.Signature{4}
	sigs := []solana.Signature{tx0, tx1, tip0, tip1}
	ok := func(s solana.Signature) Status {
		return Status{Signature: s, Found: true, Slot: 9, Confirmation: rpc.ConfirmationStatusConfirmed}
	}
	failed := func(s solana.Signature) Status { st := ok(s); st.Err = "InstructionError"; return st }
	tests := []struct {
		name   string
		said   []Status
		landed bool
		paid   int // the tip whose status is found, when landed
	}{
		{"all market transactions and the second tip", []Status{ok(tx0), ok(tx1), ok(tip1)}, true, 1},
		{"no tip yet", []Status{ok(tx0), ok(tx1)}, false, 0},
		{"a market transaction missing", []Status{ok(tx0), ok(tip0)}, false, 0},
		{"a market transaction failed", []Status{ok(tx0), failed(tx1), ok(tip0)}, false, 0},
		{"the tip failed", []Status{ok(tx0), ok(tx1), failed(tip0)}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := newBundleNotes(nil)
			for _, st := range tt.said {
				n.said[st.Signature] = st
			}
			sts, landed := n.landed(sigs, 2)
			if landed != tt.landed {
				t.Fatalf("landed = %v, want %v", landed, tt.landed)
			}
			if !landed {
				return
			}
			for i, st := range sts {
				want := i < 2 || i == 2+tt.paid
				if st.Signature != sigs[i] || st.Found != want {
					t.Errorf("status %d: %+v, want signature %s found %v", i, st, sigs[i], want)
				}
			}
		})
	}
}
