package chain

import (
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
)

func TestSettle(t *testing.T) {
	const lifetime = 20
	type fixture struct {
		fc       *fakeChain
		attempts [][]TxRef
	}
	// Each setup builds two attempts of one action; "old" blockhashes were
	// issued at height 0 and the clock is moved so that they have expired.
	key := newKey(t)
	expire := func(fc *fakeChain) { fc.start = time.Now().Add(-(lifetime + 5) * fc.slotTime) }
	tests := []struct {
		name        string
		setup       func(t *testing.T, f *fixture)
		want        Verdict
		wantAttempt int
	}{
		{
			name: "second attempt landed",
			setup: func(t *testing.T, f *fixture) {
				old, cur := f.fc.newBlockhash(), f.fc.newBlockhash()
				a, b := transferTx(t, key, old, 1), transferTx(t, key, cur, 1)
				f.fc.landed[b.Signature] = &landing{slot: 0}
				expire(f.fc)
				f.attempts = [][]TxRef{{a.Ref()}, {b.Ref()}}
			},
			want: VerdictLanded, wantAttempt: 1,
		},
		{
			name: "landed with an error still counts as landed",
			setup: func(t *testing.T, f *fixture) {
				a := transferTx(t, key, f.fc.newBlockhash(), 1)
				f.fc.landed[a.Signature] = &landing{slot: 0, err: "InsufficientFundsForFee"}
				expire(f.fc)
				f.attempts = [][]TxRef{{a.Ref()}}
			},
			want: VerdictLanded, wantAttempt: 0,
		},
		{
			name: "not landed, blockhash still valid",
			setup: func(t *testing.T, f *fixture) {
				old := f.fc.newBlockhash()
				a := transferTx(t, key, old, 1)
				expire(f.fc)
				b := transferTx(t, key, f.fc.newBlockhash(), 2)
				f.attempts = [][]TxRef{{a.Ref()}, {b.Ref()}}
			},
			want: VerdictPending, wantAttempt: -1,
		},
		{
			name: "seen at processed only",
			setup: func(t *testing.T, f *fixture) {
				a := transferTx(t, key, f.fc.newBlockhash(), 1)
				expire(f.fc)
				f.fc.landed[a.Signature] = &landing{slot: f.fc.height()} // processed, not confirmed
				f.attempts = [][]TxRef{{a.Ref()}}
			},
			want: VerdictPending, wantAttempt: -1,
		},
		{
			name: "nothing landed, every blockhash expired",
			setup: func(t *testing.T, f *fixture) {
				h1, h2 := f.fc.newBlockhash(), f.fc.newBlockhash()
				a1, a2, b := transferTx(t, key, h1, 1), transferTx(t, key, h1, 2), transferTx(t, key, h2, 3)
				expire(f.fc)
				f.attempts = [][]TxRef{{a1.Ref(), a2.Ref()}, {b.Ref()}}
			},
			want: VerdictDead, wantAttempt: -1,
		},
		{
			name: "lands during the check",
			setup: func(t *testing.T, f *fixture) {
				a := transferTx(t, key, f.fc.newBlockhash(), 1)
				expire(f.fc)
				f.fc.hook = func(method string) {
					if method == "isBlockhashValid" {
						f.fc.landed[a.Signature] = &landing{slot: 0}
					}
				}
				f.attempts = [][]TxRef{{a.Ref()}}
			},
			want: VerdictLanded, wantAttempt: 0,
		},
		{name: "no attempt", setup: func(*testing.T, *fixture) {}, want: VerdictDead, wantAttempt: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fixture{fc: newFakeChain(lifetime)}
			tt.setup(t, f)
			c, _ := newMemClient(t, f.fc, nil)
			got, err := c.Settle(t.Context(), f.attempts)
			if err != nil {
				t.Fatalf("Settle: %v", err)
			}
			if got.Verdict != tt.want || got.Attempt != tt.wantAttempt {
				t.Fatalf("verdict %v attempt %d, want %v attempt %d", got.Verdict, got.Attempt, tt.want, tt.wantAttempt)
			}
			if len(got.Statuses) != len(f.attempts) {
				t.Fatalf("%d status groups for %d attempts", len(got.Statuses), len(f.attempts))
			}
			for i, a := range f.attempts {
				for j, r := range a {
					if got.Statuses[i][j].Signature != r.Signature {
						t.Errorf("status [%d][%d] is for %s, want %s", i, j, got.Statuses[i][j].Signature, r.Signature)
					}
				}
			}
			if tt.want == VerdictDead && len(f.attempts) > 0 {
				assertDeadChecks(t, f.fc)
			}
		})
	}
}

// assertDeadChecks asserts a dead verdict searched history twice around the
// blockhash checks, at the commitment and at processed.
func assertDeadChecks(t *testing.T, fc *fakeChain) {
	t.Helper()
	var seq []string
	for _, c := range fc.calls {
		switch c.method {
		case "getSignatureStatuses":
			if o, _ := c.params[1].(map[string]any); o["searchTransactionHistory"] == true {
				seq = append(seq, "history")
			}
		case "isBlockhashValid":
			seq = append(seq, c.params[1].(map[string]any)["commitment"].(string))
		}
	}
	want := []string{"history", "confirmed", "processed", "confirmed", "processed", "history"}
	if len(seq) != len(want) {
		t.Fatalf("checks %v, want %v", seq, want)
	}
	for i := range want {
		if seq[i] != want[i] {
			t.Fatalf("checks %v, want %v", seq, want)
		}
	}
}

func TestStatuses(t *testing.T) {
	fc := newFakeChain(150)
	c, _ := newMemClient(t, fc, nil)
	key := newKey(t)
	bh := fc.newBlockhash()
	var sigs []solana.Signature
	for i := range 300 { // more than one batch of 256
		s := transferTx(t, key, bh, uint64(i+1))
		sigs = append(sigs, s.Signature)
		if i%2 == 0 {
			fc.landed[s.Signature] = &landing{slot: 0}
		}
	}
	fc.start = time.Now().Add(-40 * fc.slotTime) // slot 0 is now finalized
	st, err := c.Statuses(t.Context(), sigs)
	if err != nil {
		t.Fatalf("Statuses: %v", err)
	}
	if n := len(fc.callsOf("getSignatureStatuses")); n != 2 {
		t.Errorf("%d calls, want 2 batches", n)
	}
	for i, s := range st {
		want := i%2 == 0
		if s.Signature != sigs[i] || s.Found != want || (want && s.Confirmation != "finalized") {
			t.Fatalf("status %d = %+v, want found %v finalized", i, s, want)
		}
	}
}
