package signer

import (
	"encoding/base64"
	"errors"
	"slices"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/signer/internal/fixture"
)

func wireOf(sigs []solana.Signature, msg []byte) string { return b64(encodeWire(sigs, msg)) }

func TestDecodeWireDetection(t *testing.T) {
	s := fixtureSigner(t)
	c := corpusCase(t, "ok-claim-withdrawals")
	apiTx, err := DecodeAPITransaction(c.Message, toAPISigs(c.Signatures))
	if err != nil {
		t.Fatal(err)
	}
	msg := apiTx.MessageBytes()
	partial := apiTx.Signatures() // our slot empty, co-signature present
	signed, err := s.Sign(apiTx, KindClaimWithdrawals, toBounds(c.Bounds))
	if err != nil {
		t.Fatal(err)
	}
	corrupt := slices.Clone(partial)
	corrupt[1][5] ^= 1
	tooMany := append(slices.Clone(partial), solana.Signature{})
	tests := []struct {
		name      string
		in        string
		wantForm  Form
		wantSlots []solana.Signature
		wantRule  Rule
		malformed bool
	}{
		{"bare message", b64(msg), FormMessage, make([]solana.Signature, 2), "", false},
		{"partially signed wire", wireOf(partial, msg), FormWire, partial, "", false},
		{"fully signed wire", signed.Base64(), FormWire, slotsOf(t, signed.Wire), "", false},
		{"unsigned wire", wireOf(make([]solana.Signature, 2), msg), FormWire, make([]solana.Signature, 2), "", false},
		{"corrupt co-signature", wireOf(corrupt, msg), "", nil, RuleBadSignature, false},
		{"signature count mismatch", wireOf(tooMany, msg), "", nil, "", true},
		{"trailing byte", b64(append(encodeWire(partial, msg), 0)), "", nil, "", true},
		{"not base64", "@@@", "", nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx, err := DecodeWire(tt.in)
			switch {
			case tt.malformed:
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("err %v, want ErrMalformed", err)
				}
				return
			case tt.wantRule != "":
				if r, ok := errors.AsType[*Refusal](err); !ok || r.Rule != tt.wantRule {
					t.Fatalf("err %v, want rule %s", err, tt.wantRule)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if tx.Form() != tt.wantForm || tx.Encoding() != EncodingBase64 {
				t.Fatalf("form %s encoding %s, want %s", tx.Form(), tx.Encoding(), tt.wantForm)
			}
			if !slices.Equal(tx.MessageBytes(), msg) || !slices.Equal(tx.Signatures(), tt.wantSlots) {
				t.Fatal("message or signatures differ")
			}
		})
	}
}

// TestSignWireDecodedMatchesAPIPath: the same transaction reached through
// DecodeWire signs to the same bytes as through DecodeAPITransaction.
func TestSignWireDecodedMatchesAPIPath(t *testing.T) {
	s := fixtureSigner(t)
	c := corpusCase(t, "ok-claim-withdrawals")
	apiTx, err := DecodeAPITransaction(c.Message, toAPISigs(c.Signatures))
	if err != nil {
		t.Fatal(err)
	}
	viaAPI, err := s.Sign(apiTx, KindClaimWithdrawals, toBounds(c.Bounds))
	if err != nil {
		t.Fatal(err)
	}
	wireTx, err := DecodeWire(wireOf(apiTx.Signatures(), apiTx.MessageBytes()))
	if err != nil {
		t.Fatal(err)
	}
	viaWire, err := s.Sign(wireTx, KindClaimWithdrawals, toBounds(c.Bounds))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(viaAPI.Wire, viaWire.Wire) {
		t.Fatal("wire bytes differ between the two paths")
	}
	// solana-go agrees the result is a fully and validly signed transaction.
	stx, err := solana.TransactionFromBytes(viaWire.Wire)
	if err != nil {
		t.Fatal(err)
	}
	if err := stx.VerifySignatures(); err != nil {
		t.Fatalf("solana-go: %v", err)
	}
	if stx.Signatures[0] != viaWire.TxID {
		t.Fatal("solana-go's first signature is not our TxID")
	}
}

func TestDecodeWireOfUnsignedTipMessage(t *testing.T) {
	msg := compile(fixture.Spec{Payer: fixture.Wallet, Ixs: []fixture.Ix{{Program: solana.SystemProgramID,
		Data: fixture.SystemTransfer(1000), Accounts: []fixture.Meta{fixture.WS(fixture.Wallet), fixture.W(fixture.TipAccounts[0])}}}})
	tx, err := DecodeWire(base64.StdEncoding.EncodeToString(msg))
	if err != nil {
		t.Fatal(err)
	}
	if tx.Form() != FormMessage || len(tx.Signatures()) != 1 || !tx.Signatures()[0].IsZero() {
		t.Fatalf("form %s sigs %v", tx.Form(), tx.Signatures())
	}
}
