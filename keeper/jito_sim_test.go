package keeper

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/journal"
)

// TestTipAccountsAreAskedAsThePassStarts: a pass whose policy lands
// bundles asks the block engine for its tip accounts as it starts, beside
// its reads, so that the bundle does not wait a round trip for them between
// its signatures and its send; the tip uses them without asking again. The
// market holds every build until the engine was asked (at most a second
// of the bubble's time): on a client that asked only for the first tip,
// the build goes out late. A pass of RPC policies does not ask.
func TestTipAccountsAreAskedAsThePassStarts(t *testing.T) {
	cases := []struct {
		name, file, policy string
		wait               time.Duration
		mode               journal.Mode
		asks               int
	}{
		{"bundle", "claim-withdrawals.yaml", "claim-earn-withdrawals", 25 * time.Second, journal.ModeBundle, 1},
		{"rpc", "auto-repay.yaml", "auto-repay", 15 * time.Second, journal.ModeRPC, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newSimWorld(t, simOptions{})
				w.usePolicies(t, tc.file)
				asked := make(chan struct{})
				var once sync.Once
				var late atomic.Bool
				w.net.before = func(c netCall, _ []byte) {
					switch {
					case c.Host == simJitoHost && c.Method == "getTipAccounts":
						once.Do(func() { close(asked) })
					case c.Key != "" && tc.asks > 0: // a build
						select {
						case <-asked:
						case <-time.After(time.Second):
							late.Store(true)
						}
					}
				}
				k := w.open(t, "")
				w.advance(t, tc.wait)
				if err := k.RunOnce(t.Context()); err != nil {
					t.Fatalf("RunOnce: %v", err)
				}
				acts := k.actionsOf(t, tc.policy)
				if len(acts) == 0 || acts[0].State != journal.StateLanded || acts[0].Attempts[0].Mode != tc.mode {
					t.Fatalf("actions %+v, want one landed by %s", acts, tc.mode)
				}
				if late.Load() {
					t.Error("the build went out before the tip accounts were asked for")
				}
				if n := w.net.count(simJitoHost, "getTipAccounts"); n != tc.asks {
					t.Errorf("tip accounts asked %d times, want %d", n, tc.asks)
				}
			})
		})
	}
}

// TestBundlesKeepToTheEnginesRateLimit: the simulator's block engine takes
// one request per second from a client, as Jito's does by default, and
// refuses (429) one that comes sooner. A pass that lands a bundle (tip
// accounts, the bundle, its statuses) never meets a refusal: keeper spaces
// its requests to the engine at least a second apart.
func TestBundlesKeepToTheEnginesRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, "claim-withdrawals.yaml")
		landClaimBundle(t, w)
		var prev time.Time
		calls := 0
		for _, c := range w.net.log() {
			if c.Host != simJitoHost {
				continue
			}
			calls++
			if c.Status != http.StatusOK {
				t.Errorf("%s answered %d", c.Method, c.Status)
			}
			if gap := c.Start.Sub(prev); !prev.IsZero() && gap < time.Second {
				t.Errorf("%s sent %v after the engine's previous request, want a second at least", c.Method, gap)
			}
			prev = c.Start
		}
		if calls < 2 {
			t.Errorf("%d requests to the engine, want the tip accounts and the bundle at least", calls)
		}
	})
}

// TestPinnedTipAccountsSpareTheEngine: with chain.tip.accounts set, a pass
// that lands a bundle never asks the engine for its tip accounts, so the
// bundle is its first request and goes out as soon as it is ready.
func TestPinnedTipAccountsSpareTheEngine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, "claim-withdrawals.yaml")
		for _, k := range w.sim.Chain().Bundles.TipAccounts() {
			w.cfg.Chain.Tip.Accounts = append(w.cfg.Chain.Tip.Accounts, k.String())
		}
		landClaimBundle(t, w)
		var engine []string
		for _, c := range w.net.log() {
			if c.Host == simJitoHost {
				engine = append(engine, c.Method)
			}
		}
		if len(engine) == 0 || engine[0] != "sendBundle" || slices.Contains(engine, "getTipAccounts") {
			t.Errorf("requests to the engine %v, want the bundle first and no getTipAccounts", engine)
		}
	})
}

// TestPinnedTipAccountsAreChecked: `keeper check --online` names each
// pinned tip account the engine does not list.
func TestPinnedTipAccountsAreChecked(t *testing.T) {
	a, b, c := keyOf("tip a"), keyOf("tip b"), keyOf("tip c")
	var got []string
	fail := func(format string, args ...any) { got = append(got, fmt.Sprintf(format, args...)) }
	checkPinnedTips([]string{a.String(), b.String()}, []solana.PublicKey{a, c}, fail)
	if len(got) != 1 || !strings.Contains(got[0], "chain.tip.accounts[1] ("+b.String()+") is not one of the block engine's tip accounts") {
		t.Errorf("failures %q, want one naming accounts[1]", got)
	}
}

// landClaimBundle runs one pass of a keeper on w, whose policy is the
// example claim-withdrawals, once the scenario's request has filled, and
// wants the claim's bundle landed.
func landClaimBundle(t *testing.T, w *simWorld) {
	t.Helper()
	k := w.open(t, "")
	w.advance(t, 25*time.Second)
	if err := k.RunOnce(t.Context()); err != nil {
		t.Fatalf("RunOnce: %v", err)
	}
	if acts := k.actionsOf(t, "claim-earn-withdrawals"); len(acts) == 0 || acts[0].State != journal.StateLanded {
		t.Fatalf("actions %+v, want a landed bundle", acts)
	}
}
