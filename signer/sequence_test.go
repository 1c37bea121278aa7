package signer

import (
	"context"
	"crypto/ed25519"
	"errors"
	"slices"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/signer/internal/fixture"
)

func TestSignSequence(t *testing.T) {
	s := fixtureSigner(t)
	w, r, ws, rs := fixture.W, fixture.R, fixture.WS, fixture.RS
	pay := func(amount uint64) fixture.Ix {
		return fixture.Ix{Program: solana.TokenProgramID, Data: fixture.TokenTransferChecked(amount, 6),
			Accounts: []fixture.Meta{w(fixture.WalletUSDC), r(fixture.USDC), w(fixture.MarketVault), rs(fixture.Wallet)}}
	}
	seed := "seq"
	create := fixture.Ix{Program: solana.SystemProgramID, Accounts: []fixture.Meta{ws(fixture.Wallet), w(fixture.NewAccount), rs(fixture.Wallet)},
		Data: append(append(append(append([]byte{3, 0, 0, 0}, fixture.Wallet[:]...), le64(uint64(len(seed)))...), []byte(seed)...),
			append(append(le64(5_000_000_000), le64(165)...), solana.TokenProgramID[:]...)...)}
	closeBack := fixture.Ix{Program: solana.TokenProgramID, Data: fixture.TokenCloseAccount(),
		Accounts: []fixture.Meta{w(fixture.NewAccount), w(fixture.Wallet), rs(fixture.Wallet)}}
	tx := func(ixs ...fixture.Ix) *Tx {
		t.Helper()
		d, err := DecodeMessage(compile(fixture.Spec{Payer: fixture.Wallet, Ixs: ixs}))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	bounds := Bounds{MaxLamports: 50_000, MaxTokens: map[string]uint64{fixture.USDC.String(): 1_000_000}}
	tests := []struct {
		name  string
		txs   []*Tx
		rule  Rule
		index int
	}{
		{"two payments within the amount", []*Tx{tx(pay(400_000)), tx(pay(600_000))}, "", 0},
		{"the second transaction drains", []*Tx{tx(pay(600_000)), tx(pay(500_000))}, RuleTokenBound, 1},
		{"one transaction twice", []*Tx{tx(pay(400_000)), tx(pay(1)), tx(pay(400_000))}, RuleDuplicateTransaction, 2},
		{"an account created by one and closed back by the next", []*Tx{tx(create), tx(closeBack)}, "", 0},
		{"an account created and never closed", []*Tx{tx(create), tx(pay(1))}, RuleLamportsBound, 1},
		{"a rule of one transaction", []*Tx{tx(pay(1)), tx(fixture.Ix{Program: fixture.UnknownProgram, Accounts: []fixture.Meta{ws(fixture.Wallet)}})}, RuleProgramNotAllowed, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rule == RuleTokenBound {
				for _, x := range tt.txs {
					if _, err := s.Sign(x, KindRepay, bounds); err != nil {
						t.Fatalf("each transaction alone passes, but: %v", err)
					}
				}
			}
			signed, err := s.SignSequence(tt.txs, KindRepay, bounds)
			if tt.rule == "" {
				if err != nil || len(signed) != len(tt.txs) {
					t.Fatalf("SignSequence: %d signed, %v", len(signed), err)
				}
				return
			}
			var sr *SequenceRefusal
			if !errors.As(err, &sr) || sr.Index != tt.index || signed != nil {
				t.Fatalf("err %v, want a refusal of transaction %d", err, tt.index)
			}
			wantRule(t, err, tt.rule)
		})
	}
}

func le64(v uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	return b
}

// TestCheckSequenceAgreesWithSignSequence: the guard keeper runs before it
// simulates refuses exactly what signing would refuse, at the same
// transaction, and CheckSequence alone puts no signature anywhere.
func TestCheckSequenceAgreesWithSignSequence(t *testing.T) {
	s := fixtureSigner(t)
	pay := func(amount uint64) *Tx {
		t.Helper()
		d, err := DecodeMessage(compile(fixture.Spec{Payer: fixture.Wallet, Ixs: []fixture.Ix{{Program: solana.TokenProgramID,
			Data:     fixture.TokenTransferChecked(amount, 6),
			Accounts: []fixture.Meta{fixture.W(fixture.WalletUSDC), fixture.R(fixture.USDC), fixture.W(fixture.MarketVault), fixture.RS(fixture.Wallet)}}}}))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	bounds := Bounds{MaxLamports: 50_000, MaxTokens: map[string]uint64{fixture.USDC.String(): 1_000_000}}
	for _, txs := range [][]*Tx{{pay(400_000), pay(600_000)}, {pay(600_000), pay(600_000)}, {pay(1_000_001)}} {
		checkErr := s.CheckSequence(txs, KindRepay, bounds)
		_, signErr := s.SignSequence(txs, KindRepay, bounds)
		var c, g *SequenceRefusal
		switch {
		case checkErr == nil && signErr == nil:
		case errors.As(checkErr, &c) && errors.As(signErr, &g) && c.Index == g.Index && c.Error() == g.Error():
		default:
			t.Errorf("CheckSequence: %v; SignSequence: %v", checkErr, signErr)
		}
		for i, tx := range txs {
			if sigs := tx.Signatures(); !sigs[0].IsZero() {
				t.Errorf("transaction %d holds a signature after the guard ran", i)
			}
		}
	}
}

// TestUnsigned: the bytes keeper simulates before signing carry the
// market's signatures and nothing in our slot, even when our own signature
// came back with the transaction; signing them later fills only our slot.
func TestUnsigned(t *testing.T) {
	s := fixtureSigner(t)
	msg := threeSigners()
	co := ed25519.Sign(fixture.CoSignerKey, msg)
	other := ed25519.Sign(fixture.OtherCoSignerKey, msg)
	ours := ed25519.Sign(fixture.WalletKey, msg)
	for name, sigs := range map[string][]APISignature{
		"market's signatures only":        {cosign(fixture.CoSignerKey, msg), cosign(fixture.OtherCoSignerKey, msg)},
		"our own signature sent back too": {cosign(fixture.WalletKey, msg), cosign(fixture.CoSignerKey, msg), cosign(fixture.OtherCoSignerKey, msg)},
	} {
		t.Run(name, func(t *testing.T) {
			tx, err := DecodeAPITransaction(b64(msg), sigs)
			if err != nil {
				t.Fatal(err)
			}
			wire, err := s.Unsigned(tx)
			if err != nil {
				t.Fatal(err)
			}
			slots := slotsOf(t, wire)
			if len(slots) != 3 || !slots[0].IsZero() || !slices.Equal(slots[1][:], co) || !slices.Equal(slots[2][:], other) {
				t.Fatalf("slots %v, want [zero, the co-signers']", slots)
			}
			if _, k, _ := readShortvec(wire); !slices.Equal(wire[k+64*3:], msg) {
				t.Fatal("the unsigned wire does not end with the original message bytes")
			}
			signed, err := s.sign(context.Background(), tx)
			if err != nil {
				t.Fatal(err)
			}
			if got := mustSlot(t, signed.Wire, 0); !slices.Equal(got[:], ours) || len(signed.Wire) != len(wire) {
				t.Fatalf("signed slot 0 %s, want our signature over the same bytes", got)
			}
		})
	}
	stranger, err := DecodeMessage(compile(fixture.Spec{Payer: fixture.CoSigner, Ixs: []fixture.Ix{{Program: fixture.MarketProgram, Data: []byte{7},
		Accounts: []fixture.Meta{fixture.W(fixture.Loan)}}}}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Unsigned(stranger); err == nil {
		t.Error("Unsigned of a transaction our key does not sign: no error")
	} else {
		wantRule(t, err, RuleNotASigner)
	}
}
