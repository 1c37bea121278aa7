package chain

import (
	"testing"

	"github.com/gagliardetto/solana-go"
)

// TestOutflowsWrappedSOL shows wrapped SOL counted as one asset with SOL:
// X lamports wrapped and sent on cost X plus the fee, whatever the
// wrapped-SOL account did in between, and never a second time as tokens.
func TestOutflowsWrappedSOL(t *testing.T) {
	const (
		start = 10_000_000_000
		fee   = 7_000
		rent  = 2_039_280
		x     = 1_000_000_000
	)
	wallet := solana.NewWallet().PublicKey()
	tok := solana.TokenProgramID
	wsol := func(owner solana.PublicKey, amount uint64) *Account {
		return &Account{Lamports: rent + amount, Owner: tok, Data: tokenAccountData(solana.WrappedSol, owner, amount, 0)}
	}
	stranger := solana.NewWallet().PublicKey()
	tests := []struct {
		name      string
		pre, post *Account // the wallet's wrapped-SOL account
		walletOut uint64   // lamports the wallet itself lost, fee included
		want      int64
	}{
		{"created, wrapped, sent on and closed back", nil, nil, x + fee, x + fee},
		{"existing account, wrapped and sent on", wsol(wallet, 0), wsol(wallet, 0), x + fee, x + fee},
		{"wrapped and kept is no outflow", wsol(wallet, 0), wsol(wallet, x), x + fee, fee},
		{"created and kept: the rent stays ours", nil, wsol(wallet, 0), rent + fee, fee},
		{"closed to a stranger", wsol(wallet, x), nil, fee, x + rent + fee},
		{"handed to a stranger", wsol(wallet, x), wsol(stranger, x), fee, x + rent + fee},
		{"over the amount by one lamport", wsol(wallet, 0), wsol(wallet, 0), x + 1 + fee, x + 1 + fee},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pre := []*Account{{Lamports: start}, tt.pre}
			post := []*Account{{Lamports: start - tt.walletOut}, tt.post}
			got, err := outflows(wallet, pre, post)
			if err != nil {
				t.Fatal(err)
			}
			if got.Lamports != tt.want {
				t.Errorf("lamport outflow %d, want %d", got.Lamports, tt.want)
			}
			if v, ok := got.Tokens[solana.WrappedSol]; ok {
				t.Errorf("wrapped SOL counted again as tokens: %d", v)
			}
		})
	}
}

// TestOutflowsSeeAStrandedWallet: a native-SOL repay that leaves the wallet with lamports above zero
// but below its rent-exempt minimum is flagged, as the runtime refuses it (InsufficientFundsForRent);
// emptying the wallet, keeping it exempt, or spending from a wallet already below the minimum is not.
func TestOutflowsSeeAStrandedWallet(t *testing.T) {
	const fee = 5_000
	wallet := solana.NewWallet().PublicKey()
	wsol := &Account{Lamports: 2_039_280, Owner: solana.TokenProgramID, Data: tokenAccountData(solana.WrappedSol, solana.NewWallet().PublicKey(), 0, 0)}
	tests := []struct {
		name      string
		pre, post uint64 // the wallet's lamports
		want      bool
	}{
		{"repay leaves it exempt", 10_000_000, WalletRentMinimum, false},
		{"repay strands it one lamport short", 10_000_000, WalletRentMinimum - 1, true},
		{"repay of everything empties it", 10_000_000, 0, false},
		{"already below the minimum and spending", 800_000, 800_000 - fee, false},
		{"already below the minimum and gaining", 800_000, 800_001, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := outflows(wallet, []*Account{{Lamports: tt.pre}, wsol}, []*Account{{Lamports: tt.post}, wsol})
			if err != nil {
				t.Fatal(err)
			}
			if got.StrandsWallet != tt.want {
				t.Fatalf("StrandsWallet = %v, want %v", got.StrandsWallet, tt.want)
			}
		})
	}
}
