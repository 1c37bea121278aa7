package chain_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/internal/pipenet"

	"github.com/gagliardetto/solana-go"
	computebudget "github.com/gagliardetto/solana-go/programs/compute-budget"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/inject"
)

func TestChainsimSendLands(t *testing.T) {
	tests := []struct {
		name string
		n    int // transfers, sent in order
		// processed: the blockhash is the newest block's, which the
		// confirmed block has not seen yet (invalid at confirmed).
		processed bool
	}{
		{name: "one transfer", n: 1},
		{name: "three transfers in order", n: 3},
		{name: "blockhash newer than the confirmed block", n: 1, processed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, envConfig{})
				waitSlots(2)
				bh := e.blockhash(t)
				if tt.processed {
					bh, _ = e.sim.Ledger.LatestBlockhash(rpc.CommitmentProcessed)
					if e.sim.Ledger.IsBlockhashValid(bh, rpc.CommitmentConfirmed) {
						t.Fatal("the processed blockhash is already valid at confirmed")
					}
				}
				var txs []chain.Signed
				var to []solana.PublicKey
				for i := range tt.n {
					dst := newKey(t).PublicKey()
					to = append(to, dst)
					txs = append(txs, signTx(t, []solana.Instruction{transferIx(e.wallet.PublicKey(), dst, uint64(1000*(i+1)))}, bh, e.wallet))
				}
				res, err := e.client.SendAndConfirm(t.Context(), txs)
				if err != nil {
					t.Fatalf("SendAndConfirm: %v", err)
				}
				if res.Outcome != chain.OutcomeLanded || res.Route != chain.RouteRPC {
					t.Fatalf("outcome %v route %v, want landed rpc", res.Outcome, res.Route)
				}
				spent := uint64(0)
				prevSlot := uint64(0)
				for i, r := range res.Txs {
					l := e.landed(t, txs[i].Signature)
					if r.State != chain.TxLanded || r.Signature != txs[i].Signature || r.Slot != l.Slot || r.Err != nil {
						t.Errorf("tx %d: %+v, want landed in slot %d", i, r, l.Slot)
					}
					if l.Err != nil {
						t.Errorf("tx %d failed on chain: %v", i, l.Err)
					}
					if i > 0 && l.Slot <= prevSlot {
						t.Errorf("tx %d landed in slot %d, not after tx %d (slot %d): not confirmed one by one", i, l.Slot, i-1, prevSlot)
					}
					prevSlot = l.Slot
					if got, want := e.sim.State.Balance(to[i]), uint64(1000*(i+1)); got != want {
						t.Errorf("recipient %d holds %d, want %d", i, got, want)
					}
					spent += uint64(1000*(i+1)) + chain.LamportsPerSignature
					st, ok := e.sim.Ledger.SignatureStatus(txs[i].Signature, true)
					if !ok || st.ConfirmationStatus == rpc.ConfirmationStatusProcessed {
						t.Errorf("tx %d reported landed at status %+v, below confirmed", i, st)
					}
				}
				if got := e.sim.State.Balance(e.wallet.PublicKey()); got != walletFunds-spent {
					t.Errorf("wallet holds %d, want %d", got, walletFunds-spent)
				}
				if n := e.rpc.count("sendTransaction"); n != tt.n {
					t.Errorf("%d sendTransaction calls for %d transactions, want one each (confirmed before a rebroadcast)", n, tt.n)
				}
				for _, c := range e.rpc.all() {
					if c.Method != "sendTransaction" {
						continue
					}
					o := paramObject(t, c, 1)
					if o["skipPreflight"] != true || o["maxRetries"] != float64(0) || o["encoding"] != "base64" {
						t.Errorf("sendTransaction config %v, want skipPreflight, maxRetries 0, base64", o)
					}
				}
				e.noSecrets(t)
				e.wellFormed(t)
			})
		})
	}
}

func TestChainsimRebroadcastLands(t *testing.T) {
	tests := []struct {
		name   string
		script []inject.Fault // faults of the first sendTransaction calls
		// minSends is the least number of sendTransaction calls that can
		// have landed it.
		minSends int
		// minSlots is the least number of slots SendAndConfirm can take.
		minSlots int
	}{
		{name: "dropped once", script: []inject.Fault{inject.FaultNeverLand}, minSends: 2},
		{name: "dropped three times", script: []inject.Fault{inject.FaultNeverLand, inject.FaultNeverLand, inject.FaultNeverLand}, minSends: 4},
		{name: "server error then dropped", script: []inject.Fault{inject.FaultServerError, inject.FaultNeverLand}, minSends: 3},
		{name: "rate limited", script: []inject.Fault{inject.FaultRateLimit}, minSends: 2},
		{name: "send hangs until the request timeout", script: []inject.Fault{inject.FaultTimeout}, minSends: 2},
		{name: "answer cut off after landing", script: []inject.Fault{inject.FaultTruncate}, minSends: 1},
		{name: "slot stall right after landing delays confirmation", script: []inject.Fault{inject.FaultStall}, minSends: 1, minSlots: 25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, envConfig{})
				waitSlots(2)
				if err := e.sim.InjectFaults(chainsim.ServiceRPC, "sendTransaction", tt.script...); err != nil {
					t.Fatalf("InjectFaults: %v", err)
				}
				tx := transferTx(t, e.wallet, 5000, e.blockhash(t))
				firstSlot := e.sim.Ledger.Slot()
				start := time.Now()
				res, err := e.client.SendAndConfirm(t.Context(), []chain.Signed{tx})
				if err != nil {
					t.Fatalf("SendAndConfirm: %v", err)
				}
				if took := time.Since(start); took < time.Duration(tt.minSlots)*chainsim.SlotDuration {
					t.Errorf("confirmed after %v, before the %d-slot stall ended", took, tt.minSlots)
				}
				l := e.landed(t, tx.Signature)
				if res.Outcome != chain.OutcomeLanded || res.Txs[0].State != chain.TxLanded || res.Txs[0].Slot != l.Slot {
					t.Fatalf("result %v %+v, want landed in slot %d", res.Outcome, res.Txs[0], l.Slot)
				}
				sends := e.rpc.count("sendTransaction")
				if sends < tt.minSends {
					t.Errorf("%d sendTransaction calls, want at least %d", sends, tt.minSends)
				}
				dropped := tt.script[len(tt.script)-1] == inject.FaultNeverLand
				if dropped && l.Slot == firstSlot {
					t.Errorf("landed in slot %d of the first send, which was dropped", l.Slot)
				}
				// Every send carried the same bytes; the chain charged once.
				for _, c := range e.rpc.all() {
					if c.Method == "sendTransaction" && string(c.Params[0]) != `"`+base64.StdEncoding.EncodeToString(tx.Raw)+`"` {
						t.Errorf("a rebroadcast sent other bytes: %s", c.Params[0])
					}
				}
				if got := e.sim.State.Balance(e.wallet.PublicKey()); got != walletFunds-5000-chain.LamportsPerSignature {
					t.Errorf("wallet holds %d, want one transfer and one fee paid", got)
				}
				e.noSecrets(t)
				if !slices.Contains(tt.script, inject.FaultTruncate) {
					e.wellFormed(t)
				}
			})
		})
	}
}

func TestChainsimExpiredNeverLands(t *testing.T) {
	tests := []struct {
		name string
		// stale: the blockhash is already expired when the transaction is
		// first sent (chainsim drops it silently, as a leader would).
		stale bool
	}{
		{name: "every send dropped until the blockhash expires"},
		{name: "blockhash already expired when sent", stale: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, envConfig{sim: chainsim.Options{Faults: chainsim.Faults{RPC: inject.ServiceFaults{
					Methods: map[string]inject.MethodFaults{"sendTransaction": {Rates: inject.Rates{NeverLand: 1}}},
				}}}})
				waitSlots(2)
				bh, err := e.client.Reads.LatestBlockhash(t.Context())
				if err != nil {
					t.Fatalf("LatestBlockhash: %v", err)
				}
				tx := transferTx(t, e.wallet, 5000, bh.Hash)
				if tt.stale {
					waitSlots(chainsim.MaxBlockhashAge + 2)
					if err := e.sim.SetFaults(chainsim.Faults{}); err != nil { // a healthy node: still nothing can land
						t.Fatalf("SetFaults: %v", err)
					}
				}
				start := time.Now()
				res, err := e.client.SendAndConfirm(t.Context(), []chain.Signed{tx})
				if err != nil {
					t.Fatalf("SendAndConfirm: %v", err)
				}
				if res.Outcome != chain.OutcomeExpired || res.Txs[0].State != chain.TxExpired || res.Txs[0].Err != nil {
					t.Fatalf("result %v %+v, want expired without a rejection", res.Outcome, res.Txs[0])
				}
				e.notLanded(t, tx.Signature)
				if h := e.sim.Ledger.BlockHeight(); h <= bh.LastValidBlockHeight {
					t.Errorf("reported expired at block height %d, not past the last valid height %d", h, bh.LastValidBlockHeight)
				}
				if e.sim.Ledger.IsBlockhashValid(bh.Hash, rpc.CommitmentProcessed) {
					t.Error("reported expired while the blockhash is still valid at processed")
				}
				if tt.stale && time.Since(start) < blockhashGrace {
					t.Errorf("a blockhash never seen valid counted as expired after %v, before the grace of %v", time.Since(start), blockhashGrace)
				}
				if got := e.sim.State.Balance(e.wallet.PublicKey()); got != walletFunds {
					t.Errorf("wallet holds %d, want %d: nothing may be charged", got, walletFunds)
				}
				checkFinalHistorySearch(t, e.rpc.all(), tx.Blockhash)
				e.noSecrets(t)
				e.wellFormed(t)
			})
		})
	}
}

func TestChainsimBundleLandsAtomicallyWithTip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, envConfig{})
		waitSlots(2)
		friend := newKey(t).PublicKey()
		mint := e.newMint(t, 6, 1_000_000, e.wallet.PublicKey(), friend)
		bh := e.blockhash(t)
		txs := []chain.Signed{
			signTx(t, []solana.Instruction{transferIx(e.wallet.PublicKey(), friend, 70_000)}, bh, e.wallet),
			signTx(t, []solana.Instruction{tokenTransferIx(t, e.wallet.PublicKey(), friend, mint, 250_000)}, bh, e.wallet),
		}
		tips := &tipper{wallet: e.wallet}
		pol := chain.TipPolicy{Floor: 2_000, Cap: 50_000}
		res, err := e.client.SendBundle(t.Context(), txs, tips.tip, pol)
		if err != nil {
			t.Fatalf("SendBundle: %v", err)
		}
		if res.Outcome != chain.OutcomeLanded || res.Route != chain.RouteBundle || res.Bundle == nil {
			t.Fatalf("outcome %v route %v bundle %v, want landed as a bundle", res.Outcome, res.Route, res.Bundle)
		}
		if len(res.Bundle.Tips) != 1 || res.Bundle.LandedTip != 0 {
			t.Fatalf("tips %+v landed %d, want one tip that landed", res.Bundle.Tips, res.Bundle.LandedTip)
		}
		tip := res.Bundle.Tips[0]
		want := chain.BundleID(append(sigs(txs...), tip.Signature))
		if tip.BundleID != want || !tip.Accepted || tip.Lamports != pol.Floor {
			t.Errorf("tip %+v, want bundle %s accepted with the floor tip %d", tip, want, pol.Floor)
		}
		// The engine ran exactly our transactions, tip last, in one slot.
		bs := e.sim.Bundles.Status(tip.BundleID)
		if bs.State != chainsim.BundleLanded || !slices.Equal(bs.Signatures, append(sigs(txs...), tip.Signature)) {
			t.Fatalf("engine's bundle %+v, want landed with the market transactions then the tip", bs)
		}
		for i, s := range append(slices.Clone(txs), tips.made[0]) {
			l := e.landed(t, s.Signature)
			if l.Slot != bs.Slot || l.BundleID != tip.BundleID || l.Err != nil {
				t.Errorf("tx %d landed in slot %d bundle %q err %v, want slot %d bundle %s", i, l.Slot, l.BundleID, l.Err, bs.Slot, tip.BundleID)
			}
			if i < len(res.Txs) && (res.Txs[i].State != chain.TxLanded || res.Txs[i].Slot != bs.Slot) {
				t.Errorf("result tx %d: %+v, want landed in slot %d", i, res.Txs[i], bs.Slot)
			}
		}
		if got := e.sim.State.Balance(tip.Account); got != pol.Floor {
			t.Errorf("tip account %s holds %d, want %d", tip.Account, got, pol.Floor)
		}
		if !slices.Contains(e.sim.Bundles.TipAccounts(), tip.Account) {
			t.Errorf("tip paid to %s, not one of the engine's tip accounts", tip.Account)
		}
		fees := uint64(3 * chain.LamportsPerSignature)
		if got, want := e.sim.State.Balance(e.wallet.PublicKey()), walletFunds-70_000-pol.Floor-fees; got != want {
			t.Errorf("wallet holds %d lamports, want %d", got, want)
		}
		if got := e.sim.State.TokenBalance(friend, mint); got != 1_250_000 {
			t.Errorf("friend holds %d tokens, want 1250000", got)
		}
		if n := e.rpc.count("sendTransaction"); n != 0 {
			t.Errorf("%d sendTransaction calls: a bundle must not go through RPC", n)
		}
		e.noSecrets(t)
		e.jitoAuthSent(t)
		e.wellFormed(t)
	})
}

func TestChainsimBundleLandedPerEngineWhileRPCIsDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, envConfig{})
		waitSlots(2)
		// Our RPC cannot answer statuses for a while after the bundle is
		// sent: the engine's Landed is cross-checked with getBundleStatuses,
		// nothing is resubmitted, and our RPC decides once it answers.
		down := slices.Repeat([]inject.Fault{inject.FaultServerError}, 4)
		if err := e.sim.InjectFaults(chainsim.ServiceRPC, "getSignatureStatuses", down...); err != nil {
			t.Fatalf("InjectFaults: %v", err)
		}
		txs := []chain.Signed{transferTx(t, e.wallet, 10_000, e.blockhash(t))}
		tips := &tipper{wallet: e.wallet}
		res, err := e.client.SendBundle(t.Context(), txs, tips.tip, chain.TipPolicy{Floor: 1_000, Cap: 1_000})
		if err != nil {
			t.Fatalf("SendBundle: %v", err)
		}
		if res.Outcome != chain.OutcomeLanded || res.Bundle.LandedTip != 0 || len(res.Bundle.Tips) != 1 {
			t.Fatalf("outcome %v bundle %+v, want landed with its one tip", res.Outcome, res.Bundle)
		}
		if n := e.jito.count("sendBundle"); n != 1 {
			t.Errorf("%d sendBundle calls, want 1: a bundle the engine reports landed must not be resubmitted", n)
		}
		// One cross-check: the engine's landed record was found and
		// matched on the first ask (a null or mismatched answer is asked
		// again, or logged).
		if e.jito.count("getInflightBundleStatuses") == 0 || e.jito.count("getBundleStatuses") != 1 {
			t.Errorf("engine calls %v, want in-flight statuses and one cross-check of the landed bundle", e.jito.all())
		}
		for _, m := range []string{"getInflightBundleStatuses", "getBundleStatuses", "sendBundle", "getTipAccounts"} {
			if errs := e.obs.errs(m); len(errs) != 0 {
				t.Errorf("%s failed: %v", m, errs)
			}
		}
		msgs := logMessages(t, e.logs.String())
		for _, bad := range []string{"engine reports different transactions for our bundle", "engine's bundle id differs from ours"} {
			if slices.Contains(msgs, bad) {
				t.Errorf("client logged %q against chainsim", bad)
			}
		}
		if got := len(e.obs.errs("getSignatureStatuses")); got != len(down) {
			t.Errorf("%d status failures observed, want %d", got, len(down))
		}
		e.noSecrets(t)
		e.jitoAuthSent(t)
		e.wellFormed(t)
	})
}

func TestChainsimBundleTip(t *testing.T) {
	tests := []struct {
		name     string
		minTip   uint64 // the engine's minimum
		pol      chain.TipPolicy
		want     chain.Outcome
		route    chain.Route
		tips     []uint64 // tip transactions made, in order
		landed   int      // index of the tip that landed, or -1
		tipPaid  uint64   // total received by the tip accounts
		viaRPC   bool     // the market transactions went through sendTransaction
		atCap    bool     // the bundle at the cap was sent again and again
		wantNote string
	}{
		{
			name: "too small at the floor, raised until it lands", minTip: 3_000,
			pol:  chain.TipPolicy{Floor: 1_000, Cap: 8_000},
			want: chain.OutcomeLanded, route: chain.RouteBundle,
			tips: []uint64{1_000, 2_000, 4_000}, landed: 2, tipPaid: 4_000,
		},
		{
			name: "too small up to the cap: dropped until the blockhash expires", minTip: 10_000,
			pol:  chain.TipPolicy{Floor: 1_000, Cap: 4_000},
			want: chain.OutcomeExpired, route: chain.RouteBundle,
			tips: []uint64{1_000, 2_000, 4_000}, landed: -1, atCap: true,
		},
		{
			name: "too small up to the cap: falls back to RPC", minTip: 10_000,
			pol:  chain.TipPolicy{Floor: 1_000, Cap: 3_000, RaisePercent: 50, FallbackRPC: true},
			want: chain.OutcomeLanded, route: chain.RouteRPCFallback,
			tips: []uint64{1_000, 1_500, 2_250, 3_000}, landed: -1, viaRPC: true,
			wantNote: "bundle dropped at the tip cap; sent through rpc one by one",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, envConfig{sim: chainsim.Options{MinTip: tt.minTip}})
				waitSlots(2)
				bh, err := e.client.Reads.LatestBlockhash(t.Context())
				if err != nil {
					t.Fatalf("LatestBlockhash: %v", err)
				}
				txs := []chain.Signed{transferTx(t, e.wallet, 10_000, bh.Hash), transferTx(t, e.wallet, 20_000, bh.Hash)}
				tips := &tipper{wallet: e.wallet}
				res, err := e.client.SendBundle(t.Context(), txs, tips.tip, tt.pol)
				if err != nil {
					t.Fatalf("SendBundle: %v", err)
				}
				if res.Outcome != tt.want || res.Route != tt.route || res.Note != tt.wantNote {
					t.Fatalf("outcome %v route %v note %q, want %v %v %q", res.Outcome, res.Route, res.Note, tt.want, tt.route, tt.wantNote)
				}
				if got := tips.tips(); !slices.Equal(got, tt.tips) {
					t.Errorf("tips asked for %v, want %v", got, tt.tips)
				}
				if n := e.jito.count("sendBundle"); (n > len(tt.tips)) != tt.atCap {
					t.Errorf("%d sendBundle calls for %d tips; resubmitted at the cap: %v", n, len(tt.tips), tt.atCap)
				}
				if len(res.Bundle.Tips) != len(tt.tips) || res.Bundle.LandedTip != tt.landed {
					t.Fatalf("bundle report %+v, want %d tips, landed %d", res.Bundle, len(tt.tips), tt.landed)
				}
				// Every dropped bundle was reported by the engine as failed
				// for its tip, and none of its transactions landed with it.
				for i, tip := range res.Bundle.Tips {
					if tip.Lamports != tt.tips[i] || !tip.Accepted {
						t.Errorf("tip %d: %+v, want %d lamports, accepted", i, tip, tt.tips[i])
					}
					bs := e.sim.Bundles.Status(tip.BundleID)
					if i == tt.landed {
						if bs.State != chainsim.BundleLanded {
							t.Errorf("bundle %d: %s, want landed", i, bs.State)
						}
						continue
					}
					reasons := e.droppedFor(t, tip.BundleID)
					// At the cap the same bundle is resubmitted until its
					// blockhash expires; the last copy may still wait for its
					// slot when keeper proves the expiry.
					lastAtCap := tt.atCap && i == len(res.Bundle.Tips)-1 && bs.State == chainsim.BundlePending
					if bs.State != chainsim.BundleFailed && !lastAtCap || len(reasons) == 0 || !strings.Contains(reasons[0], "below the minimum") {
						t.Errorf("bundle %d: %s %q, want failed for its tip", i, bs.State, reasons)
					}
					e.notLanded(t, tips.made[i].Signature)
				}
				if got := tipBalance(e.sim); got != tt.tipPaid {
					t.Errorf("tip accounts received %d, want %d", got, tt.tipPaid)
				}
				for i, s := range txs {
					r := res.Txs[i]
					switch tt.want {
					case chain.OutcomeLanded:
						l := e.landed(t, s.Signature)
						if r.State != chain.TxLanded || r.Slot != l.Slot {
							t.Errorf("tx %d: %+v, want landed in slot %d", i, r, l.Slot)
						}
						if tt.viaRPC == (l.BundleID != "") {
							t.Errorf("tx %d landed in bundle %q; via rpc: %v", i, l.BundleID, tt.viaRPC)
						}
					case chain.OutcomeExpired:
						e.notLanded(t, s.Signature)
						if r.State != chain.TxExpired {
							t.Errorf("tx %d: %v, want expired", i, r.State)
						}
						if h := e.sim.Ledger.BlockHeight(); h <= bh.LastValidBlockHeight {
							t.Errorf("reported expired at height %d, not past %d", h, bh.LastValidBlockHeight)
						}
						if got := e.sim.State.Balance(e.wallet.PublicKey()); got != walletFunds {
							t.Errorf("wallet holds %d, want %d: a dropped bundle costs nothing", got, walletFunds)
						}
					}
				}
				if got := e.rpc.count("sendTransaction") > 0; got != tt.viaRPC {
					t.Errorf("sendTransaction used: %v, want %v", got, tt.viaRPC)
				}
				e.noSecrets(t)
				e.jitoAuthSent(t)
				e.wellFormed(t)
			})
		})
	}
}

// outflowCase is one case of TestChainsimSimulateOutflows.
type outflowCase struct {
	name string
	// ixs builds the instructions; the wallet pays, friend co-signs
	// when cosign is set.
	ixs        func(t *testing.T, wallet, friend, mint solana.PublicKey) []solana.Instruction
	cosign     bool
	wantLam    int64
	wantTokens int64 // of mint; absent from Tokens when zero and noToken
	noToken    bool  // the wallet's token account is not referenced
	// upperBound: the fee is estimated without a compute-unit limit,
	// so the estimate may exceed what the chain takes (never less).
	upperBound bool
}

func TestChainsimSimulateOutflows(t *testing.T) {
	const (
		lamports = 1_000_000
		tokens   = 250_000
	)
	tests := []outflowCase{
		{
			name: "system transfer",
			ixs: func(_ *testing.T, w, f, _ solana.PublicKey) []solana.Instruction {
				return []solana.Instruction{transferIx(w, f, lamports)}
			},
			wantLam: lamports + chain.LamportsPerSignature, noToken: true,
		},
		{
			name: "spl token transfer",
			ixs: func(t *testing.T, w, f, m solana.PublicKey) []solana.Instruction {
				return []solana.Instruction{tokenTransferIx(t, w, f, m, tokens)}
			},
			wantLam: chain.LamportsPerSignature, wantTokens: tokens,
		},
		{
			name: "both with a priority fee",
			ixs: func(t *testing.T, w, f, m solana.PublicKey) []solana.Instruction {
				return []solana.Instruction{
					computebudget.NewSetComputeUnitLimitInstruction(100_000).Build(),
					computebudget.NewSetComputeUnitPriceInstruction(20_000).Build(), // 2000 lamports
					transferIx(w, f, lamports),
					tokenTransferIx(t, w, f, m, tokens),
				}
			},
			wantLam: lamports + chain.LamportsPerSignature + 2_000, wantTokens: tokens,
		},
		{
			name: "priority fee without a unit limit is an upper bound",
			ixs: func(_ *testing.T, w, f, _ solana.PublicKey) []solana.Instruction {
				return []solana.Instruction{
					computebudget.NewSetComputeUnitPriceInstruction(1_000_000).Build(), // 1 lamport per unit
					transferIx(w, f, lamports),
				}
			},
			// The fee estimate assumes 200,000 units for the transfer;
			// chainsim, like the runtime, reserves 3,000 per builtin
			// instruction (6,000 here), and the post-state has what the
			// chain charges.
			wantLam: lamports + chain.LamportsPerSignature + 6_000, noToken: true, upperBound: true,
		},
		{
			name: "tokens received, fee for two signatures paid",
			ixs: func(t *testing.T, w, f, m solana.PublicKey) []solana.Instruction {
				return []solana.Instruction{tokenTransferIx(t, f, w, m, tokens)}
			},
			cosign: true, wantLam: 2 * chain.LamportsPerSignature, wantTokens: -tokens,
		},
	}
	// A current node returns the balances with the simulation: one request.
	// An older one does not: the client asks once, then reads the accounts
	// around each simulation.
	nodes := []struct {
		name   string
		legacy bool
		calls  []string
	}{
		{"balances", false, []string{"simulateTransaction"}},
		{"legacy node", true, []string{"simulateTransaction", "getMultipleAccounts", "simulateTransaction", "getMultipleAccounts"}},
	}
	for _, node := range nodes {
		for _, tt := range tests {
			t.Run(node.name+"/"+tt.name, func(t *testing.T) {
				simulateOutflowCase(t, tt, node.legacy, node.calls)
			})
		}
	}
}

// simulateOutflowCase runs one case of TestChainsimSimulateOutflows on a
// node that returns balances with simulations or (legacy) does not, and
// checks that Simulate made exactly calls.
func simulateOutflowCase(t *testing.T, tt outflowCase, legacy bool, calls []string) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, envConfig{sim: chainsim.Options{SimulateWithoutBalances: legacy}})
		friend := newKey(t)
		e.fund(t, friend.PublicKey(), 1_000_000)
		mint := e.newMint(t, 6, 1_000_000, e.wallet.PublicKey(), friend.PublicKey())
		waitSlots(2)
		var others []solana.PrivateKey
		if tt.cosign {
			others = append(others, friend)
		}
		tx := signTx(t, tt.ixs(t, e.wallet.PublicKey(), friend.PublicKey(), mint), e.blockhash(t), e.wallet, others...)
		lamBefore, tokBefore := e.sim.State.Balance(e.wallet.PublicKey()), e.sim.State.TokenBalance(e.wallet.PublicKey(), mint)

		// keeper simulates before it signs: the wallet's slot zero, a
		// co-signer's signature kept. The signed bytes are refused unsent.
		if _, err := e.client.Simulate(t.Context(), tx.Raw, e.wallet.PublicKey()); !errors.Is(err, chain.ErrSignedByWallet) {
			t.Fatalf("Simulate signed by the wallet: %v, want ErrSignedByWallet", err)
		}
		before := len(e.rpc.all())
		sim, err := e.client.Simulate(t.Context(), unsignedByWallet(tx.Raw), e.wallet.PublicKey())
		if err != nil {
			t.Fatalf("Simulate: %v", err)
		}
		var made []string
		for _, c := range e.rpc.all()[before:] {
			made = append(made, c.Method)
		}
		if !slices.Equal(made, calls) {
			t.Errorf("Simulate made %v, want %v", made, calls)
		}
		if sim.Outflows.Lamports != tt.wantLam {
			t.Errorf("lamport outflow %d, want %d", sim.Outflows.Lamports, tt.wantLam)
		}
		got, ok := sim.Outflows.Tokens[mint]
		if got != tt.wantTokens || ok == tt.noToken || len(sim.Outflows.Tokens) > 1 {
			t.Errorf("token outflows %v, want %d of %s", sim.Outflows.Tokens, tt.wantTokens, mint)
		}
		if sim.UnitsConsumed == 0 || len(sim.Logs) == 0 {
			t.Errorf("simulation reported %d units and logs %q", sim.UnitsConsumed, sim.Logs)
		}
		if e.sim.State.Balance(e.wallet.PublicKey()) != lamBefore {
			t.Fatal("the simulation changed the wallet's balance")
		}
		checkSimulateRequest(t, e, mint, !tt.noToken, legacy)
		res, err := e.client.SendAndConfirm(t.Context(), []chain.Signed{tx})
		if err != nil || res.Outcome != chain.OutcomeLanded {
			t.Fatalf("SendAndConfirm: %v, %v", res.Outcome, err)
		}
		l := e.landed(t, tx.Signature)
		if !sim.Fee.Payer.Equals(e.wallet.PublicKey()) || sim.Fee.Total() < l.Fee || sim.Fee.Total() != l.Fee && !tt.upperBound {
			t.Errorf("simulated fee %+v (total %d), chain charged %d", sim.Fee, sim.Fee.Total(), l.Fee)
		}
		lamAfter, tokAfter := e.sim.State.Balance(e.wallet.PublicKey()), e.sim.State.TokenBalance(e.wallet.PublicKey(), mint)
		if d := int64(lamBefore) - int64(lamAfter); d > sim.Outflows.Lamports || d != sim.Outflows.Lamports && !tt.upperBound {
			t.Errorf("wallet's lamports went down by %d after landing, simulation said %d", d, sim.Outflows.Lamports)
		}
		if d := int64(tokBefore) - int64(tokAfter); d != sim.Outflows.Tokens[mint] {
			t.Errorf("wallet's tokens went down by %d after landing, simulation said %d", d, sim.Outflows.Tokens[mint])
		}
		e.wellFormed(t)
	})
}

func TestChainsimSimulateFailure(t *testing.T) {
	tests := []struct {
		name      string
		amount    uint64 // tokens sent; the wallet holds 1000
		processed bool   // blockhash of the newest block, unknown at confirmed
		wantErr   string
		retryable bool
		logs      bool
	}{
		{
			name: "program error: not enough tokens", amount: 5_000,
			wantErr: "map[InstructionError:[0 map[Custom:1]]]", logs: true,
		},
		{
			name: "blockhash the confirmed block has not seen yet", amount: 10, processed: true,
			wantErr: "BlockhashNotFound", retryable: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, envConfig{})
				friend := newKey(t).PublicKey()
				mint := e.newMint(t, 6, 1_000, e.wallet.PublicKey(), friend)
				waitSlots(2)
				bh := e.blockhash(t)
				if tt.processed {
					bh, _ = e.sim.Ledger.LatestBlockhash(rpc.CommitmentProcessed)
				}
				tx := signTx(t, []solana.Instruction{tokenTransferIx(t, e.wallet.PublicKey(), friend, mint, tt.amount)}, bh, e.wallet)
				sim, err := e.client.Simulate(t.Context(), unsignedByWallet(tx.Raw), e.wallet.PublicKey())
				var se *chain.SimError
				if !errors.As(err, &se) || sim == nil {
					t.Fatalf("Simulate = %v, %v; want a result and a *SimError", sim, err)
				}
				if got := fmt.Sprint(se.Err); got != tt.wantErr {
					t.Errorf("simulation error %s, want %s", got, tt.wantErr)
				}
				if (len(se.Logs) > 0) != tt.logs || sim.Outflows.Lamports != 0 || len(sim.Outflows.Tokens) != 0 {
					t.Errorf("logs %q outflows %+v, want logs: %v and no outflows", se.Logs, sim.Outflows, tt.logs)
				}
				if chain.Retryable(err) != tt.retryable || se.BlockhashNotFound() != tt.retryable {
					t.Errorf("retryable %v, blockhash not found %v; want %v", chain.Retryable(err), se.BlockhashNotFound(), tt.retryable)
				}
				if sim.Fee.Total() != chain.LamportsPerSignature {
					t.Errorf("fee %+v, want one signature's", sim.Fee)
				}
				e.notLanded(t, tx.Signature)
				e.wellFormed(t)
			})
		})
	}
}

func TestChainsimSettle(t *testing.T) {
	tests := []struct {
		name string
		// attempts makes the earlier attempts of one action on the chain.
		attempts    func(t *testing.T, e *env) [][]chain.TxRef
		want        chain.Verdict
		wantAttempt int
		// found[i][j]: the status of attempt i's transaction j was found.
		found [][]bool
		// failed: the landed transaction carries its error.
		failed bool
	}{
		{
			name: "landed",
			attempts: func(t *testing.T, e *env) [][]chain.TxRef {
				tx := transferTx(t, e.wallet, 1_000, e.blockhash(t))
				mustLand(t, e, tx)
				return [][]chain.TxRef{{tx.Ref()}}
			},
			want: chain.VerdictLanded, wantAttempt: 0, found: [][]bool{{true}},
		},
		{
			name: "second attempt landed after the first expired unsent",
			attempts: func(t *testing.T, e *env) [][]chain.TxRef {
				first := transferTx(t, e.wallet, 1_000, e.blockhash(t))
				waitSlots(chainsim.MaxBlockhashAge + 2)
				second := transferTx(t, e.wallet, 1_000, e.blockhash(t))
				mustLand(t, e, second)
				return [][]chain.TxRef{{first.Ref()}, {second.Ref()}}
			},
			want: chain.VerdictLanded, wantAttempt: 1, found: [][]bool{{false}, {true}},
		},
		{
			name: "landed long ago, beyond the status cache",
			attempts: func(t *testing.T, e *env) [][]chain.TxRef {
				tx := transferTx(t, e.wallet, 1_000, e.blockhash(t))
				mustLand(t, e, tx)
				waitSlots(400)
				return [][]chain.TxRef{{tx.Ref()}}
			},
			want: chain.VerdictLanded, wantAttempt: 0, found: [][]bool{{true}},
		},
		{
			name: "landed and failed",
			attempts: func(t *testing.T, e *env) [][]chain.TxRef {
				friend := newKey(t).PublicKey()
				mint := e.newMint(t, 0, 10, e.wallet.PublicKey(), friend)
				tx := signTx(t, []solana.Instruction{tokenTransferIx(t, e.wallet.PublicKey(), friend, mint, 11)}, e.blockhash(t), e.wallet)
				mustLand(t, e, tx)
				return [][]chain.TxRef{{tx.Ref()}}
			},
			want: chain.VerdictLanded, wantAttempt: 0, found: [][]bool{{true}}, failed: true,
		},
		{
			name: "pending: sent, dropped, blockhash still valid",
			attempts: func(t *testing.T, e *env) [][]chain.TxRef {
				tx := transferTx(t, e.wallet, 1_000, e.blockhash(t))
				if err := e.sim.InjectFaults(chainsim.ServiceRPC, "sendTransaction", inject.FaultNeverLand); err != nil {
					t.Fatal(err)
				}
				sendOnce(t, e, tx)
				waitSlots(chainsim.MaxBlockhashAge - 10)
				return [][]chain.TxRef{{tx.Ref()}}
			},
			want: chain.VerdictPending, wantAttempt: -1, found: [][]bool{{false}},
		},
		{
			name: "pending: processed, not yet confirmed",
			attempts: func(t *testing.T, e *env) [][]chain.TxRef {
				tx := transferTx(t, e.wallet, 1_000, e.blockhash(t))
				sendOnce(t, e, tx) // no time passes before Settle asks
				return [][]chain.TxRef{{tx.Ref()}}
			},
			want: chain.VerdictPending, wantAttempt: -1, found: [][]bool{{true}},
		},
		{
			name: "pending: first attempt expired, second still valid",
			attempts: func(t *testing.T, e *env) [][]chain.TxRef {
				first := transferTx(t, e.wallet, 1_000, e.blockhash(t))
				waitSlots(chainsim.MaxBlockhashAge + 2)
				second := transferTx(t, e.wallet, 1_000, e.blockhash(t))
				return [][]chain.TxRef{{first.Ref()}, {second.Ref()}}
			},
			want: chain.VerdictPending, wantAttempt: -1, found: [][]bool{{false}, {false}},
		},
		{
			name: "dead: every attempt expired unlanded",
			attempts: func(t *testing.T, e *env) [][]chain.TxRef {
				bh := e.blockhash(t)
				a := []chain.TxRef{transferTx(t, e.wallet, 1_000, bh).Ref(), transferTx(t, e.wallet, 2_000, bh).Ref()}
				waitSlots(20)
				b := transferTx(t, e.wallet, 3_000, e.blockhash(t))
				if err := e.sim.InjectFaults(chainsim.ServiceRPC, "sendTransaction", inject.FaultNeverLand); err != nil {
					t.Fatal(err)
				}
				sendOnce(t, e, b)
				waitSlots(chainsim.MaxBlockhashAge + 2)
				return [][]chain.TxRef{a, {b.Ref()}}
			},
			want: chain.VerdictDead, wantAttempt: -1, found: [][]bool{{false, false}, {false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, envConfig{})
				waitSlots(2)
				attempts := tt.attempts(t, e)
				before := len(e.rpc.all())
				s, err := e.client.Settle(t.Context(), attempts)
				if err != nil {
					t.Fatalf("Settle: %v", err)
				}
				if s.Verdict != tt.want || s.Attempt != tt.wantAttempt {
					t.Fatalf("verdict %v attempt %d, want %v %d", s.Verdict, s.Attempt, tt.want, tt.wantAttempt)
				}
				if len(s.Statuses) != len(attempts) {
					t.Fatalf("%d status lists for %d attempts", len(s.Statuses), len(attempts))
				}
				if tt.failed && s.Statuses[s.Attempt][0].Err == nil {
					t.Errorf("landed status %+v, want the chain's error", s.Statuses[s.Attempt][0])
				}
				for i, a := range attempts {
					for j, ref := range a {
						st := s.Statuses[i][j]
						chainSt, landed := e.sim.Ledger.SignatureStatus(ref.Signature, true)
						if st.Signature != ref.Signature || st.Found != tt.found[i][j] || st.Found != landed {
							t.Errorf("attempt %d tx %d: %+v, want found %v (chain: %v)", i, j, st, tt.found[i][j], landed)
							continue
						}
						if landed && (st.Slot != chainSt.Slot || st.Confirmation != chainSt.ConfirmationStatus || (st.Err == nil) != (chainSt.Err == nil)) {
							t.Errorf("attempt %d tx %d: %+v, chain says %+v", i, j, st, chainSt)
						}
					}
				}
				for _, c := range e.rpc.all()[before:] {
					if c.Method == "getSignatureStatuses" && paramObject(t, c, 1)["searchTransactionHistory"] != true {
						t.Errorf("Settle asked statuses without searching the history: %s", c.Params)
					}
				}
				e.wellFormed(t)
			})
		})
	}
}

func TestChainsimDuplicateSend(t *testing.T) {
	// forcePreflight makes the node run preflight on every send, as some
	// providers do: a duplicate is then answered "already processed".
	forcePreflight := func(c *rpcCall) {
		if c.Method == "sendTransaction" && len(c.Params) == 2 {
			c.Params[1] = json.RawMessage(`{"encoding":"base64","skipPreflight":false,"preflightCommitment":"processed"}`)
		}
	}
	tests := []struct {
		name string
		// earlier lands tx before the client sends it.
		earlier func(t *testing.T, e *env, tx chain.Signed)
		rewrite func(*rpcCall)
		// answered: the node answered the duplicate "already processed".
		answered bool
	}{
		{
			name: "landed by another sender; the node drops the duplicate silently",
			earlier: func(t *testing.T, e *env, tx chain.Signed) {
				if _, err := e.sim.SendTransaction(tx.Raw); err != nil {
					t.Fatalf("SendTransaction: %v", err)
				}
			},
		},
		{
			name:    "landed by an earlier SendAndConfirm",
			earlier: func(t *testing.T, e *env, tx chain.Signed) { mustLand(t, e, tx) },
		},
		{
			name: "landed by another sender; a preflighting node answers already processed",
			earlier: func(t *testing.T, e *env, tx chain.Signed) {
				if _, err := e.sim.SendTransaction(tx.Raw); err != nil {
					t.Fatalf("SendTransaction: %v", err)
				}
			},
			rewrite: forcePreflight, answered: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, envConfig{rewrite: tt.rewrite})
				waitSlots(2)
				tx := transferTx(t, e.wallet, 7_000, e.blockhash(t))
				tt.earlier(t, e, tx)
				first := e.landed(t, tx.Signature)
				waitSlots(1)
				res, err := e.client.SendAndConfirm(t.Context(), []chain.Signed{tx})
				if err != nil {
					t.Fatalf("SendAndConfirm: %v", err)
				}
				if res.Outcome != chain.OutcomeLanded || res.Txs[0].State != chain.TxLanded || res.Txs[0].Slot != first.Slot || res.Txs[0].Err != nil {
					t.Fatalf("result %v %+v, want landed in the first landing's slot %d", res.Outcome, res.Txs[0], first.Slot)
				}
				if _, err := e.sim.SendTransaction(tx.Raw); !errors.Is(err, svm.ErrAlreadyProcessed) {
					t.Errorf("chainsim took the same transaction again: %v", err)
				}
				if got := e.sim.State.Balance(e.wallet.PublicKey()); got != walletFunds-7_000-chain.LamportsPerSignature {
					t.Errorf("wallet holds %d: the transfer or its fee was taken twice", got)
				}
				e.noSecrets(t)
				e.wellFormed(t)
				sendErrs := e.obs.errs("sendTransaction")
				msgs := logMessages(t, e.logs.String())
				if !tt.answered {
					if len(sendErrs) != 0 {
						t.Errorf("send errors %v, want none", sendErrs)
					}
					return
				}
				var re *chain.RPCError
				if len(sendErrs) == 0 || !errors.As(sendErrs[0], &re) || re.Code != -32002 || dataErr(re) != "AlreadyProcessed" {
					t.Fatalf("send errors %v, want the node's -32002 AlreadyProcessed", sendErrs)
				}
				if !slices.Contains(msgs, "transaction already processed") || slices.Contains(msgs, "node rejected the transaction; watching it until its blockhash expires") {
					t.Errorf("log messages %q: the answer was not counted as sent", msgs)
				}
			})
		})
	}
}

func TestChainsimFailover(t *testing.T) {
	httpStatus := func(code int) func(error) bool {
		return func(err error) bool {
			var he *chain.HTTPError
			return errors.As(err, &he) && he.Status == code && chain.Retryable(err)
		}
	}
	tests := []struct {
		name   string
		faults chainsim.Faults // of the first node
		// wantErr matches the error the client observed from the first node.
		wantErr func(error) bool
	}{
		{
			name:    "every call answered 503",
			faults:  chainsim.Faults{RPC: inject.ServiceFaults{All: inject.MethodFaults{Rates: inject.Rates{ServerError: 1}}}, ServerErrorStatus: 503},
			wantErr: httpStatus(503),
		},
		{
			name:    "every call answered 500",
			faults:  chainsim.Faults{RPC: inject.ServiceFaults{All: inject.MethodFaults{Rates: inject.Rates{ServerError: 1}}}, ServerErrorStatus: 500},
			wantErr: httpStatus(500),
		},
		{
			name:    "every call answered 429",
			faults:  chainsim.Faults{RPC: inject.ServiceFaults{All: inject.MethodFaults{Rates: inject.Rates{RateLimit: 1}}}},
			wantErr: httpStatus(429),
		},
		{
			name:   "every call hangs",
			faults: chainsim.Faults{RPC: inject.ServiceFaults{All: inject.MethodFaults{Rates: inject.Rates{Timeout: 1}}}},
			wantErr: func(err error) bool {
				var te *chain.TransportError
				return errors.As(err, &te) && chain.Retryable(err)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// Two nodes of one cluster: same seed and genesis, so the
				// same blockhashes; only the second is healthy.
				n := &pipenet.Network{}
				bad := startNode(t, n, "bad", chainsim.Options{Seed: 7, Faults: tt.faults}, nil)
				good := startNode(t, n, "good", chainsim.Options{Seed: 7}, nil)
				wallet := newKey(t)
				bad.fund(t, wallet.PublicKey(), walletFunds)
				good.fund(t, wallet.PublicKey(), walletFunds)
				obs := &observer{}
				logs := &logBuffer{}
				client := newClient(t, chain.Options{
					RPCURLs: []string{bad.rpcURL, good.rpcURL}, RequestTimeout: requestTimeout,
					RebroadcastInterval: rebroadcast, PollInterval: pollInterval, BlockhashGrace: blockhashGrace,
					HTTPClient: n.Client(), Observe: obs.observe,
					Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
				})
				waitSlots(2)
				bh, err := client.Reads.LatestBlockhash(t.Context())
				if err != nil {
					t.Fatalf("LatestBlockhash: %v", err)
				}
				if want, _ := bad.sim.Ledger.LatestBlockhash(rpc.CommitmentConfirmed); bh.Hash != want {
					t.Fatalf("the nodes disagree on the blockhash: %s, %s", bh.Hash, want)
				}
				tx := transferTx(t, wallet, 9_000, bh.Hash)
				res, err := client.SendAndConfirm(t.Context(), []chain.Signed{tx})
				if err != nil || res.Outcome != chain.OutcomeLanded {
					t.Fatalf("SendAndConfirm: %v %+v, %v", res.Outcome, res.Txs, err)
				}
				l := good.landed(t, tx.Signature)
				if res.Txs[0].Slot != l.Slot {
					t.Errorf("reported slot %d, landed in %d", res.Txs[0].Slot, l.Slot)
				}
				bad.notLanded(t, tx.Signature)
				bal, err := client.Balance(t.Context(), wallet.PublicKey())
				if err != nil || bal != walletFunds-9_000-chain.LamportsPerSignature {
					t.Errorf("Balance = %d, %v; want the healthy node's %d", bal, err, walletFunds-9_000-chain.LamportsPerSignature)
				}
				if bad.rpc.count("sendTransaction") == 0 {
					t.Error("the send never tried the first node: no failover was exercised")
				}
				if n := len(bad.rpc.all()); n > 2 {
					t.Errorf("the failing node got %d requests; once failed it should be tried after the healthy one", n)
				}
				errs := obs.allErrs()
				if len(errs) == 0 {
					t.Fatal("no failure observed")
				}
				for _, err := range errs {
					if !tt.wantErr(err) {
						t.Errorf("observed %T %v, want the first node's failure", err, err)
					}
					if strings.Contains(err.Error(), apiKey) {
						t.Errorf("error leaks the API key: %v", err)
					}
				}
				if strings.Contains(logs.String(), apiKey) {
					t.Error("logs leak the API key")
				}
				if !slices.Contains(logMessages(t, logs.String()), "rpc endpoint failed, trying the next one") {
					t.Error("the failover was not logged")
				}
			})
		})
	}
}

func TestChainsimReads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, envConfig{})
		mint := e.newMint(t, 9, 123_456, e.wallet.PublicKey())
		ata, err := svm.AssociatedTokenAddress(e.wallet.PublicKey(), mint)
		if err != nil {
			t.Fatal(err)
		}
		waitSlots(3)
		ctx := t.Context()

		bh, err := e.client.Reads.LatestBlockhash(ctx)
		wantHash, wantLast := e.sim.Ledger.LatestBlockhash(rpc.CommitmentConfirmed)
		if err != nil || bh.Hash != wantHash || bh.LastValidBlockHeight != wantLast {
			t.Errorf("LatestBlockhash = %+v, %v; want %s valid to %d", bh, err, wantHash, wantLast)
		}
		priced := signTx(t, []solana.Instruction{
			computebudget.NewSetComputeUnitLimitInstruction(10_000).Build(),
			computebudget.NewSetComputeUnitPriceInstruction(777).Build(),
			transferIx(e.wallet.PublicKey(), newKey(t).PublicKey(), 1),
		}, bh.Hash, e.wallet)
		mustLand(t, e, priced)

		if bal, err := e.client.Balance(ctx, e.wallet.PublicKey()); err != nil || bal != e.sim.State.Balance(e.wallet.PublicKey()) {
			t.Errorf("Balance = %d, %v; want %d", bal, err, e.sim.State.Balance(e.wallet.PublicKey()))
		}
		missing := newKey(t).PublicKey()
		accs, err := e.client.Accounts(ctx, []solana.PublicKey{e.wallet.PublicKey(), mint, ata, missing})
		if err != nil || len(accs) != 4 {
			t.Fatalf("Accounts = %v, %v", accs, err)
		}
		for i, k := range []solana.PublicKey{e.wallet.PublicKey(), mint, ata} {
			want, _ := e.sim.State.Account(k)
			if a := accs[i]; a == nil || a.Lamports != want.Lamports || !a.Owner.Equals(want.Owner) || !bytes.Equal(a.Data, want.Data) {
				t.Errorf("account %d (%s) = %+v, want %+v", i, k, a, want)
			}
		}
		if accs[3] != nil {
			t.Errorf("missing account = %+v, want nil", accs[3])
		}
		if len(accs[1].Data) != svm.MintSize || len(accs[2].Data) != svm.TokenAccountSize {
			t.Errorf("mint %d bytes, token account %d bytes", len(accs[1].Data), len(accs[2].Data))
		}

		l := e.landed(t, priced.Signature)

		unknown := transferTx(t, e.wallet, 1, bh.Hash)
		st, err := e.client.Statuses(ctx, []solana.Signature{priced.Signature, unknown.Signature})
		if err != nil || len(st) != 2 || !st[0].Found || st[0].Slot != l.Slot || !st[0].Reached(rpc.CommitmentConfirmed) || st[1].Found {
			t.Errorf("Statuses = %+v, %v; want the landed one found in slot %d, the other not", st, err, l.Slot)
		}

		for _, tc := range []struct {
			wait int
			want bool
		}{{0, true}, {chainsim.MaxBlockhashAge + 2, false}} {
			waitSlots(tc.wait)
			if ok, err := e.client.Reads.BlockhashValid(ctx, bh.Hash); err != nil || ok != tc.want {
				t.Errorf("BlockhashValid after %d more slots = %v, %v; want %v", tc.wait, ok, err, tc.want)
			}
		}
		e.wellFormed(t)
		e.noSecrets(t)
	})
}

func TestChainsimBundleFull(t *testing.T) {
	tests := []struct {
		name     string
		fallback bool
		want     chain.Outcome
		wantErr  error
	}{
		{name: "refused without rpc fallback", want: chain.OutcomeRefused, wantErr: chain.ErrBundleFull},
		{name: "sent one by one with rpc fallback", fallback: true, want: chain.OutcomeLanded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, envConfig{})
				waitSlots(2)
				bh := e.blockhash(t)
				var txs []chain.Signed
				for i := range chain.MaxBundleTxs {
					txs = append(txs, transferTx(t, e.wallet, uint64(1_000+i), bh))
				}
				tips := &tipper{wallet: e.wallet}
				res, err := e.client.SendBundle(t.Context(), txs, tips.tip, chain.TipPolicy{Floor: 1_000, Cap: 5_000, FallbackRPC: tt.fallback})
				if !errors.Is(err, tt.wantErr) || res.Outcome != tt.want {
					t.Fatalf("SendBundle = %v, %v; want %v, %v", res.Outcome, err, tt.want, tt.wantErr)
				}
				if len(tips.tips()) != 0 || e.jito.count("sendBundle") != 0 {
					t.Errorf("tips %v, %d bundles: a full bundle has no room for a tip", tips.tips(), e.jito.count("sendBundle"))
				}
				for i, s := range txs {
					if !tt.fallback {
						e.notLanded(t, s.Signature)
						if res.Txs[i].State != chain.TxNotSent {
							t.Errorf("tx %d: %v, want not sent", i, res.Txs[i].State)
						}
						continue
					}
					if l := e.landed(t, s.Signature); res.Txs[i].State != chain.TxLanded || l.BundleID != "" {
						t.Errorf("tx %d: %+v in bundle %q, want landed through rpc", i, res.Txs[i], l.BundleID)
					}
				}
				if tt.fallback && res.Route != chain.RouteRPCFallback {
					t.Errorf("route %v, want rpc-fallback", res.Route)
				}
				if res.Note == "" {
					t.Error("no note says why the bundle was not used")
				}
				e.wellFormed(t)
			})
		})
	}
}

func TestChainsimBundleFailingMemberLandsNothing(t *testing.T) {
	tests := []struct {
		name     string
		fallback bool
		want     chain.Outcome
	}{
		// The engine drops every bundle; at the cap it is resent until
		// the blockhash expires: nothing lands, not even the tip.
		{name: "no fallback: expired", want: chain.OutcomeExpired},
		// Through RPC the second transaction lands and fails (its fee is
		// paid); the first landed before it.
		{name: "rpc fallback: the failure lands", fallback: true, want: chain.OutcomeFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, envConfig{})
				friend := newKey(t).PublicKey()
				mint := e.newMint(t, 0, 10, e.wallet.PublicKey(), friend)
				waitSlots(2)
				bh := e.blockhash(t)
				txs := []chain.Signed{
					transferTx(t, e.wallet, 3_000, bh),
					signTx(t, []solana.Instruction{tokenTransferIx(t, e.wallet.PublicKey(), friend, mint, 11)}, bh, e.wallet),
				}
				tips := &tipper{wallet: e.wallet}
				res, err := e.client.SendBundle(t.Context(), txs, tips.tip, chain.TipPolicy{Floor: 2_000, Cap: 2_000, FallbackRPC: tt.fallback})
				if err != nil || res.Outcome != tt.want {
					t.Fatalf("SendBundle = %v, %v; want %v", res.Outcome, err, tt.want)
				}
				if got := tipBalance(e.sim); got != 0 || res.Bundle.LandedTip != -1 {
					t.Errorf("tip accounts received %d, landed tip %d; want nothing", got, res.Bundle.LandedTip)
				}
				reasons := e.droppedFor(t, res.Bundle.Tips[0].BundleID)
				if len(reasons) == 0 || !strings.Contains(reasons[0], "transaction 1") {
					t.Errorf("engine's reasons %q, want transaction 1's failure", reasons)
				}
				for _, tip := range tips.made {
					e.notLanded(t, tip.Signature)
				}
				if !tt.fallback {
					for i, s := range txs {
						e.notLanded(t, s.Signature)
						if res.Txs[i].State != chain.TxExpired {
							t.Errorf("tx %d: %v, want expired", i, res.Txs[i].State)
						}
					}
					if got := e.sim.State.Balance(e.wallet.PublicKey()); got != walletFunds {
						t.Errorf("wallet holds %d, want %d", got, walletFunds)
					}
					return
				}
				var te *chain.TxError
				if res.Txs[0].State != chain.TxLanded || res.Txs[1].State != chain.TxFailed || !errors.As(res.Txs[1].Err, &te) {
					t.Errorf("txs %+v, want the first landed and the second failed with a *TxError", res.Txs)
				}
				if l := e.landed(t, txs[1].Signature); l.Err == nil || l.BundleID != "" {
					t.Errorf("failing tx landed with err %v in bundle %q, want failed through rpc", l.Err, l.BundleID)
				}
				if got, want := e.sim.State.Balance(e.wallet.PublicKey()), uint64(walletFunds-3_000-2*chain.LamportsPerSignature); got != want {
					t.Errorf("wallet holds %d, want %d (a transfer and two fees)", got, want)
				}
			})
		})
	}
}

func TestChainsimBundlesSharingABlockhashGetDistinctTips(t *testing.T) {
	// Tips of equal lamports with one blockhash from one wallet differ only
	// by their tip account. Picked blindly, two of nine would be the same
	// transaction (eight tip accounts), and the later bundle, its tip
	// already landed, would be dropped.
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, envConfig{})
		waitSlots(2)
		bh := e.blockhash(t)
		n := len(e.sim.Bundles.TipAccounts()) + 1
		pol := chain.TipPolicy{Floor: 1_000, Cap: 5_000}
		tips := &tipper{wallet: e.wallet}
		seen := map[solana.Signature]int{}
		paid := uint64(0)
		for i := range n {
			tx := transferTx(t, e.wallet, uint64(100+i), bh)
			res, err := e.client.SendBundle(t.Context(), []chain.Signed{tx}, tips.tip, pol)
			if err != nil || res.Outcome != chain.OutcomeLanded {
				t.Fatalf("bundle %d: %v, %v; want landed", i, res.Outcome, err)
			}
			if len(res.Bundle.Tips) != 1 {
				t.Errorf("bundle %d took %d tips %+v, want one: no bundle may be dropped", i, len(res.Bundle.Tips), res.Bundle.Tips)
			}
			for _, tip := range res.Bundle.Tips {
				if j, dup := seen[tip.Signature]; dup {
					t.Errorf("bundle %d reused the tip transaction of bundle %d", i, j)
				}
				seen[tip.Signature] = i
				if tip.Lamports < pol.Floor || tip.Lamports > pol.Floor+1 {
					t.Errorf("bundle %d tipped %d, want the floor %d or one lamport more", i, tip.Lamports, pol.Floor)
				}
			}
			paid += res.Bundle.Tips[res.Bundle.LandedTip].Lamports
		}
		if got := tipBalance(e.sim); got != paid || paid != uint64(n)*pol.Floor+1 {
			t.Errorf("tip accounts received %d, reports say %d, want %d", got, paid, uint64(n)*pol.Floor+1)
		}
		if got := e.jito.count("sendBundle"); got != n {
			t.Errorf("%d bundles sent for %d submissions", got, n)
		}
	})
}

// unsignedByWallet returns raw with its first signature slot, the fee
// payer's (the wallet's in these tests), zeroed: what keeper simulates
// before it signs.
func unsignedByWallet(raw []byte) []byte {
	out := slices.Clone(raw)
	clear(out[1:65]) // one shortvec byte, then slot 0
	return out
}
