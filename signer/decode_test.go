package signer

import (
	"crypto/ed25519"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/signer/internal/fixture"
)

func TestDecodeAPITransactionEncoding(t *testing.T) {
	b64case := corpusCase(t, "ok-repay-v0-lookup")
	b58case := corpusCase(t, "ok-repay-base58")
	tests := []struct {
		name    string
		message string
		want    Encoding
		wantErr string
	}{
		{"base64", b64case.Message, EncodingBase64, ""},
		{"base58 fallback", b58case.Message, EncodingBase58, ""},
		{"empty", "", "", "empty message"},
		{"base64 of garbage", b64([]byte("not a message at all")), "", "account keys"},
		{"base58-alphabet garbage", "abcdefgh", "", "neither base64"},
		{"not base64 nor base58", "!!!!", "", "illegal base64"},
		{"truncated base64 message", b64case.Message[:len(b64case.Message)-8], "", "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx, err := DecodeAPITransaction(tt.message, nil)
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want ErrMalformed mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tx.Encoding() != tt.want || tx.Form() != FormMessage {
				t.Fatalf("encoding %s form %s, want %s message", tx.Encoding(), tx.Form(), tt.want)
			}
		})
	}
}

// threeSigners is a message signed by our wallet, the co-signer and a
// second co-signer, in that slot order.
func threeSigners() []byte {
	return compile(fixture.Spec{Payer: fixture.Wallet, Ixs: []fixture.Ix{{Program: fixture.MarketProgram, Data: []byte{7},
		Accounts: []fixture.Meta{fixture.RS(fixture.CoSigner), fixture.RS(fixture.OtherCoSigner), fixture.W(fixture.Loan)}}}})
}

func TestSignaturePlacementByPublicKey(t *testing.T) {
	msg := threeSigners()
	co := ed25519.Sign(fixture.CoSignerKey, msg)
	other := ed25519.Sign(fixture.OtherCoSignerKey, msg)
	zero58 := solana.Signature{}.String()
	tests := []struct {
		name string
		sigs []APISignature
		want [3][]byte // expected slot contents, nil = empty
	}{
		{"in order", []APISignature{cosign(fixture.CoSignerKey, msg), cosign(fixture.OtherCoSignerKey, msg)}, [3][]byte{nil, co, other}},
		{"reversed", []APISignature{cosign(fixture.OtherCoSignerKey, msg), cosign(fixture.CoSignerKey, msg)}, [3][]byte{nil, co, other}},
		{"base58 signature", []APISignature{{PublicKey: fixture.CoSigner.String(), Signature: solana.SignatureFromBytes(co).String()}}, [3][]byte{nil, co, nil}},
		{"zero placeholder for us", []APISignature{{PublicKey: fixture.Wallet.String(), Signature: zero58}, cosign(fixture.CoSignerKey, msg)}, [3][]byte{nil, co, nil}},
		{"identical duplicate", []APISignature{cosign(fixture.CoSignerKey, msg), cosign(fixture.CoSignerKey, msg)}, [3][]byte{nil, co, nil}},
		{"none", nil, [3][]byte{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx, err := DecodeAPITransaction(b64(msg), tt.sigs)
			if err != nil {
				t.Fatal(err)
			}
			got := tx.Signatures()
			if len(got) != 3 {
				t.Fatalf("%d slots", len(got))
			}
			for i, want := range tt.want {
				if want == nil && !got[i].IsZero() || want != nil && !slices.Equal(got[i][:], want) {
					t.Fatalf("slot %d = %s, want %x", i, got[i], want)
				}
			}
			if signers := tx.Signers(); signers[0] != fixture.Wallet || signers[1] != fixture.CoSigner || signers[2] != fixture.OtherCoSigner {
				t.Fatalf("signers %v", signers)
			}
		})
	}
}

func TestAPISignatureRefusals(t *testing.T) {
	msg := threeSigners()
	forged := APISignature{PublicKey: fixture.CoSigner.String(), Signature: b64(ed25519.Sign(fixture.StrangerKey, msg))}
	otherMsg := append(slices.Clone(msg[:len(msg)-1]), msg[len(msg)-1]^1)
	tests := []struct {
		name      string
		sig       APISignature
		wantRule  Rule
		malformed bool
	}{
		{"stranger key", cosign(fixture.StrangerKey, msg), RuleUnknownSigner, false},
		{"non-signer account of the message", APISignature{PublicKey: fixture.Loan.String(), Signature: b64(make([]byte, 64))}, RuleUnknownSigner, false},
		{"forged", forged, RuleBadSignature, false},
		{"signature over other bytes", cosign(fixture.CoSignerKey, otherMsg), RuleBadSignature, false},
		{"signature of our key by someone else", APISignature{PublicKey: fixture.Wallet.String(), Signature: b64(ed25519.Sign(fixture.CoSignerKey, msg))}, RuleBadSignature, false},
		{"bad public key", APISignature{PublicKey: "0OIl", Signature: b64(make([]byte, 64))}, "", true},
		{"short signature", APISignature{PublicKey: fixture.CoSigner.String(), Signature: b64(make([]byte, 63))}, "", true},
		{"garbage signature", APISignature{PublicKey: fixture.CoSigner.String(), Signature: "%%%"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx, err := DecodeAPITransaction(b64(msg), []APISignature{tt.sig})
			if tx != nil || err == nil {
				t.Fatal("accepted")
			}
			if tt.malformed {
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("err %v, want ErrMalformed", err)
				}
				return
			}
			if r, ok := errors.AsType[*Refusal](err); !ok || r.Rule != tt.wantRule {
				t.Fatalf("err %v, want rule %s", err, tt.wantRule)
			}
		})
	}
}

func TestTxAccessors(t *testing.T) {
	c := corpusCase(t, "ok-repay-v0-lookup")
	tx, err := DecodeAPITransaction(c.Message, toAPISigs(c.Signatures))
	if err != nil {
		t.Fatal(err)
	}
	if !tx.Versioned() || tx.FeePayer() != fixture.Wallet || tx.Blockhash() != fixture.Blockhash {
		t.Fatalf("versioned %v payer %s blockhash %s", tx.Versioned(), tx.FeePayer(), tx.Blockhash())
	}
	wantProgs := []solana.PublicKey{solana.ComputeBudget, solana.ComputeBudget, solana.SPLAssociatedTokenAccountProgramID,
		solana.TokenProgramID, fixture.MarketProgram}
	if got := tx.ProgramIDs(); !slices.Equal(got, wantProgs) {
		t.Fatalf("programs %v, want %v", got, wantProgs)
	}
	if got := tx.LookupTables(); !slices.Equal(got, []solana.PublicKey{fixture.LookupTable}) {
		t.Fatalf("tables %v", got)
	}
	if _, ok := tx.DurableNonce(); ok {
		t.Fatal("durable nonce reported")
	}
	b := tx.MessageBytes()
	b[0] ^= 0xff
	if tx.MessageBytes()[0] == b[0] {
		t.Fatal("MessageBytes shares memory with the Tx")
	}
	keys := tx.StaticKeys()
	if keys[0] != fixture.Wallet || slices.Contains(keys, fixture.Loan) {
		t.Fatalf("static keys %v: the loan should come from the lookup table", keys)
	}
}
