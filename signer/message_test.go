package signer

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/signer/internal/fixture"
)

// TestParseMessageMatchesSolanaGo decodes every corpus message with our
// parser and with solana-go's, and requires the same view and a byte-exact
// re-encoding by solana-go.
func TestParseMessageMatchesSolanaGo(t *testing.T) {
	for _, f := range loadCorpus(t) {
		t.Run(f.name, func(t *testing.T) {
			raw, m, _, err := decodeMessageText(f.c.Message)
			if err != nil {
				t.Fatal(err)
			}
			var sm solana.Message
			if err := sm.UnmarshalBase64(b64(raw)); err != nil {
				t.Fatalf("solana-go: %v", err)
			}
			again, err := sm.MarshalBinary()
			if err != nil || !slices.Equal(again, raw) {
				t.Fatalf("solana-go does not re-encode the message byte for byte (err %v)", err)
			}
			if sm.IsVersioned() != m.versioned || !slices.Equal([]solana.PublicKey(sm.AccountKeys), m.keys) ||
				sm.RecentBlockhash != m.blockhash || len(sm.Instructions) != len(m.ixs) || len(sm.AddressTableLookups) != len(m.lookups) {
				t.Fatal("our view differs from solana-go's")
			}
			h := sm.Header
			if (header{h.NumRequiredSignatures, h.NumReadonlySignedAccounts, h.NumReadonlyUnsignedAccounts}) != m.header {
				t.Fatalf("header %+v, solana-go %+v", m.header, h)
			}
			for i, ix := range sm.Instructions {
				if int(ix.ProgramIDIndex) != int(m.ixs[i].program) || !slices.Equal(ix.Data, solana.Base58(m.ixs[i].data)) {
					t.Fatalf("instruction %d differs", i)
				}
			}
		})
	}
}

func validV0() []byte {
	return compile(fixture.Spec{Payer: fixture.Wallet, V0: true, Ixs: []fixture.Ix{
		{Program: fixture.MarketProgram, Data: []byte{1, 2}, Accounts: []fixture.Meta{fixture.WS(fixture.Wallet), fixture.W(fixture.Loan)}},
	}, Tables: []fixture.Table{{Key: fixture.LookupTable, Addresses: []solana.PublicKey{fixture.Loan}}}})
}

func validLegacy() []byte {
	return compile(fixture.Spec{Payer: fixture.Wallet, Ixs: []fixture.Ix{
		{Program: fixture.MarketProgram, Data: []byte{1, 2}, Accounts: []fixture.Meta{fixture.WS(fixture.Wallet), fixture.W(fixture.Loan)}},
	}})
}

// TestParseMessageRejects covers every structural and sanitize refusal.
func TestParseMessageRejects(t *testing.T) {
	legacy := validLegacy()
	v0 := validV0()
	// legacy layout: header(3) | n(1) keys(32n) | blockhash(32) | ixs
	keysAt := 4
	legacyIxAt := keysAt + 32*3 + 32 // wallet, loan, program
	mut := func(b []byte, f func([]byte) []byte) []byte { return f(slices.Clone(b)) }
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "header"},
		{"trailing byte", append(slices.Clone(legacy), 0), "trailing bytes"},
		{"version 1", mut(v0, func(b []byte) []byte { b[0] = 0x81; return b }), "unsupported message version 1"},
		{"no signer", mut(legacy, func(b []byte) []byte { b[0] = 0; return b }), "fee payer must be a writable signer"},
		{"read-only fee payer", mut(legacy, func(b []byte) []byte { b[1] = 1; return b }), "fee payer must be a writable signer"},
		{"header beyond keys", mut(legacy, func(b []byte) []byte { b[2] = 3; return b }), "only 3 account keys"},
		{"key count truncated", legacy[:keysAt+10], "account keys"},
		{"non-canonical key count", mut(legacy, func(b []byte) []byte {
			return slices.Concat(b[:3], []byte{0x83, 0x00}, b[4:])
		}), "not canonical"},
		{"program is fee payer", mut(legacy, func(b []byte) []byte { b[legacyIxAt+1] = 0; return b }), "fee payer cannot be the program"},
		{"program index out of range", mut(legacy, func(b []byte) []byte { b[legacyIxAt+1] = 9; return b }), "not a static account key"},
		{"account index out of range", mut(legacy, func(b []byte) []byte { b[legacyIxAt+3] = 7; return b }), "account index 7 out of range"},
		{"duplicate key", mut(legacy, func(b []byte) []byte { copy(b[keysAt+32:], b[keysAt:keysAt+32]); return b }), "listed twice"},
		{"data length beyond end", mut(legacy, func(b []byte) []byte { b[len(b)-3] = 9; return b }), "data"},
		{"v0 without lookup count", v0[:len(v0)-1-32-1-1-1], "address table lookup"},
		{"v0 program from lookup table", mut(v0, func(b []byte) []byte {
			// the one instruction's program index sits right after the instruction count
			b[1+3+1+32*2+32+1] = 2
			return b
		}), "programs cannot come from lookup tables"},
		{"v0 empty lookup", mut(v0, func(b []byte) []byte { return append(b[:len(b)-3], 0, 0) }), "loads no account"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseMessage(tt.b)
			if err == nil {
				t.Fatal("parsed")
			}
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %q, want ErrMalformed mentioning %q", err, tt.want)
			}
		})
	}
}

// TestParseMessageEveryPrefixFails: no truncation of a valid message parses.
func TestParseMessageEveryPrefixFails(t *testing.T) {
	for _, b := range [][]byte{validLegacy(), validV0()} {
		if _, err := parseMessage(b); err != nil {
			t.Fatalf("valid message refused: %v", err)
		}
		for n := range len(b) {
			if _, err := parseMessage(b[:n]); err == nil {
				t.Fatalf("prefix of %d/%d bytes parsed", n, len(b))
			}
		}
	}
}
