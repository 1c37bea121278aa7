package sim

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"testing"
	"time"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/txbuild"
)

// decodedTx is an API transaction taken apart.
type decodedTx struct {
	msg  solana.Message
	raw  []byte
	sigs map[solana.PublicKey]bool // signers whose signature the API sent and that verifies
}

// decodeAPI decodes an API transaction object and verifies its signatures.
func decodeAPI(t *testing.T, tx market.Transaction) decodedTx {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(tx.Message)
	if err != nil {
		t.Fatal(err)
	}
	d := decodedTx{raw: raw, sigs: map[solana.PublicKey]bool{}}
	if err := d.msg.UnmarshalWithDecoder(bin.NewBinDecoder(raw)); err != nil {
		t.Fatal(err)
	}
	for _, s := range tx.Signatures {
		k := solana.MustPublicKeyFromBase58(s.PublicKey)
		sig, _ := base64.StdEncoding.DecodeString(s.Signature)
		d.sigs[k] = ed25519.Verify(ed25519.PublicKey(k[:]), raw, sig)
	}
	return d
}

// hasIx reports whether some instruction of program satisfies ok.
func (d decodedTx) hasIx(program solana.PublicKey, ok func(accounts []solana.PublicKey, data []byte) bool) bool {
	for _, ci := range d.msg.Instructions {
		if d.msg.AccountKeys[ci.ProgramIDIndex] != program {
			continue
		}
		var accts []solana.PublicKey
		for _, i := range ci.Accounts {
			accts = append(accts, d.msg.AccountKeys[i])
		}
		if ok(accts, ci.Data) {
			return true
		}
	}
	return false
}

// isSigner reports whether k is a required signer.
func (d decodedTx) isSigner(k solana.PublicKey) bool {
	for i := range int(d.msg.Header.NumRequiredSignatures) {
		if d.msg.AccountKeys[i] == k {
			return true
		}
	}
	return false
}

func TestHostileModes(t *testing.T) {
	w, stranger := testWallet(), ids.Stranger()
	any := func([]solana.PublicKey, []byte) bool { return true }
	tests := []struct {
		mode  faults.Hostile
		check func(e *env, d decodedTx) bool
	}{
		{faults.HostileSystemTransfer, func(e *env, d decodedTx) bool {
			return d.hasIx(solana.SystemProgramID, func(a []solana.PublicKey, data []byte) bool {
				return len(a) == 2 && a[0] == w && a[1] == stranger && data[0] == 2
			})
		}},
		{faults.HostileTokenTransfer, func(e *env, d decodedTx) bool {
			return d.hasIx(solana.TokenProgramID, func(a []solana.PublicKey, data []byte) bool {
				return len(a) == 3 && a[2] == w && data[0] == 3 && a[1] == txbuild.Ata(stranger, e.addr(t, ids.KindMint, "USDC"))
			})
		}},
		{faults.HostileSetAuthority, func(e *env, d decodedTx) bool {
			return d.hasIx(solana.TokenProgramID, func(a []solana.PublicKey, data []byte) bool {
				return data[0] == 6 && solana.PublicKeyFromBytes(data[3:35]) == stranger && a[1] == w
			})
		}},
		{faults.HostileUnknownProgram, func(e *env, d decodedTx) bool { return d.hasIx(faults.UnknownProgramID.Get(), any) }},
		{faults.HostileFeePayer, func(e *env, d decodedTx) bool {
			return d.msg.AccountKeys[0] == stranger && d.sigs[stranger] && d.isSigner(w)
		}},
		{faults.HostileExtraSigner, func(e *env, d decodedTx) bool {
			_, signed := d.sigs[stranger]
			return d.isSigner(stranger) && !signed
		}},
	}
	for _, tc := range tests {
		t.Run(tc.mode.String(), func(t *testing.T) {
			e := newEnv(t, Options{Faults: faults.Faults{Market: faults.Market{Hostile: []faults.Hostile{tc.mode}}}})
			build := func(key market.IdempotencyKey) decodedTx {
				tx, err := e.market.WithdrawFromStrategy(e.ctx, key, market.WithdrawStrategyRequest{Amount: 1, Strategy: e.addr(t, ids.KindStrategy, "alpha").String()})
				if err != nil {
					t.Fatal(err)
				}
				return decodeAPI(t, *tx)
			}
			d := build("hostile-1")
			if !tc.check(e, d) {
				t.Errorf("transaction lacks the %s change: %+v", tc.mode, d.msg)
			}
			if !d.sigs[ids.CoSigner()] || !d.hasIx(ids.MarketProgramID, any) {
				t.Errorf("hostile transaction is not the co-signed market operation")
			}
			if honest := build("hostile-2"); tc.check(e, honest) {
				t.Errorf("the next call is still hostile")
			}
		})
	}
}

func TestHostileAlwaysAndWire(t *testing.T) {
	e := newEnv(t, Options{Faults: faults.Faults{Market: faults.Market{HostileAlways: faults.HostileExtraSigner}}})
	for i := range 2 {
		tx, err := e.market.ClaimFees(e.ctx, market.IdempotencyKey(fmt.Sprintf("always-%d", i)),
			market.ClaimFeesRequest{Loan: e.addr(t, ids.KindLoan, "claim-me").String(), PositionMint: e.addr(t, ids.KindPosition, "pos-b").String()})
		if err != nil {
			t.Fatal(err)
		}
		if d := decodeAPI(t, *tx); !d.isSigner(ids.Stranger()) {
			t.Errorf("call %d: HostileAlways did not apply", i)
		}
	}
	if err := e.sim.Faults().InjectHostile(faults.HostileFeePayer); err != nil {
		t.Fatal(err)
	}
	e.advance(t, 20*time.Second)
	resp, err := e.market.ClaimEarnWithdrawal(e.ctx, "wire-1", market.WithdrawClaimRequest{Address: e.addr(t, ids.KindEarn, "usdc-earn").String(),
		Wallet: testWallet().String(), RequestID: e.addr(t, ids.KindRequest, "usdc-earn/r-full").String()})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(resp.TxBase64s[len(resp.TxBase64s)-1])
	var m solana.Message
	if err := m.UnmarshalWithDecoder(bin.NewBinDecoder(raw[1+64*int(raw[0]):])); err != nil || m.AccountKeys[0] != ids.Stranger() {
		t.Errorf("wire claim fee payer %v (%v), want the stranger", m.AccountKeys, err)
	}
}
