package chainsim

import (
	"testing"

	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// TestRentRule runs transfers under Options.Rent and checks Agave's rent rule: a writable account
// (the fee payer too, after its fee) may end empty or rent-exempt; it may end rent-paying only if it
// was rent-paying before, kept its size and gained nothing. The error names the account's index.
func TestRentRule(t *testing.T) {
	const (
		fee    = 5000
		exempt = 890_880 // RentExemptMinimum(0)
	)
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	tests := []struct {
		name         string
		alice, bob   uint64 // balances before
		amount       uint64
		wantRentFail int // the account index named, -1 for success
	}{
		{"payer stays exempt", 10_000_000, 0, exempt, -1},
		{"new account below the minimum", 10_000_000, 0, exempt - 1, 1},
		{"payer stranded below the minimum", exempt + fee + 1000, exempt, 2000, 0},
		{"payer emptied", exempt + fee, exempt, exempt, -1},
		{"rent-paying recipient gains", 10_000_000, 1000, 1000, 1},
		{"fee leaves the payer rent-paying", exempt + fee - 1, exempt, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, clk := newChain(t, Options{Rent: true})
			mustFund(t, c, alice.PublicKey(), tt.alice)
			if tt.bob > 0 {
				mustFund(t, c, bob, tt.bob)
			}
			advanceSlots(clk, 1)
			res, err := c.Simulate(raw(t, transfer(t, alice, bob, tt.amount, latest(c))), SimulateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantRentFail < 0 {
				if res.Err != nil {
					t.Fatalf("err %v, want success", res.Err)
				}
				return
			}
			if want := svm.InsufficientFundsForRent(tt.wantRentFail); res.Err == nil || res.Err.Error() != want.Error() {
				t.Fatalf("err %v, want %v", res.Err, want)
			}
			if !jsonEqual(t, res.Err, map[string]any{"InsufficientFundsForRent": map[string]any{"account_index": tt.wantRentFail}}) {
				t.Fatalf("wire err %v", res.Err.Wire())
			}
		})
	}
}

// TestRentRuleChargesTheFeeOfALandedFailure: a transaction that breaks the rent rule in execution
// lands as failed, charged its fee, with nothing else written.
func TestRentRuleChargesTheFeeOfALandedFailure(t *testing.T) {
	c, clk := newChain(t, Options{Rent: true})
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 10_000_000)
	advanceSlots(clk, 1)
	tx := transfer(t, alice, bob, 1000, latest(c))
	if _, err := c.SendTransaction(raw(t, tx)); err != nil {
		t.Fatal(err)
	}
	l, ok := c.Ledger.Transaction(tx.Signatures[0])
	if !ok || l.Err == nil || l.Err.Kind() != "InsufficientFundsForRent" {
		t.Fatalf("landed %v, err %v", ok, l.Err)
	}
	if c.State.Balance(bob) != 0 || c.State.Balance(alice.PublicKey()) != 10_000_000-l.Fee {
		t.Fatalf("balances alice %d bob %d, want only the fee %d charged", c.State.Balance(alice.PublicKey()), c.State.Balance(bob), l.Fee)
	}
}
