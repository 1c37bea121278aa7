package sim

import (
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
)

// TestProgramsCheckAuthority sends transactions the market would never build: the programs refuse
// them on chain (they land failed, with a log line saying why).
func TestProgramsCheckAuthority(t *testing.T) {
	e := newEnv(t, Options{})
	w := testWallet()
	a := func(kind, name string) solana.PublicKey { return e.addr(t, kind, name) }
	usdc, beta, alpha := a(KindMint, "USDC"), a(KindStrategy, "beta"), a(KindStrategy, "alpha")
	repayAlice := func(user solana.PublicKey) ix {
		return marketIx(user, instr.RepayOp{Amount: 1}.Encode(), meta(a(KindLoan, "alice-sol"), false, true), meta(alpha, false, false),
			meta(ata(user, usdc), false, true), meta(ata(alpha, usdc), false, true), meta(usdc, false, false), meta(solana.TokenProgramID, false, false))
	}
	noCoSigner := repayAlice(w)
	noCoSigner.Accounts[1] = meta(ids.CoSigner(), false, false)
	posA, _, _ := e.sim.Position(a(KindPosition, "pos-a"))
	posAddr := e.sim.w.posByMint[a(KindPosition, "pos-a")].Address
	tests := []struct {
		name string
		ixs  []ix
		want string
	}{
		{"repay another's loan", []ix{repayAlice(w)}, "is not the borrower of loan"},
		{"no co-signature", []ix{noCoSigner}, "co-signer"},
		{"update another's strategy", []ix{updateIx(w, beta, []instr.TermItem{{Kind: instr.ItemSetParam, Param: instr.ParamOriginationsEnabled}})},
			"is not the authority of strategy"},
		{"claim another's request", []ix{{Program: ids.EarnProgramID, Data: []byte{instr.EarnOpClaim}, Accounts: []solana.AccountMeta{
			meta(w, true, true), meta(ids.CoSigner(), true, false), meta(a(KindRequest, "usdc-earn/r-alice"), false, true),
			meta(a(KindEarn, "usdc-earn"), false, false), meta(ata(a(KindEarn, "usdc-earn"), usdc), false, true),
			meta(ata(w, usdc), false, true), meta(usdc, false, false), meta(solana.TokenProgramID, false, false)}}},
			"belongs to another wallet"},
		{"dex without co-signer", []ix{{Program: ids.DexAProgramID, Data: instr.EncodeTransferRange(posA.Range.Lower-10, posA.Range.Upper),
			Accounts: []solana.AccountMeta{meta(posAddr, false, true), meta(posA.Pool, false, false), meta(w, true, false)}}},
			"co-signer must sign"},
		{"unknown instruction", []ix{marketIx(w, []byte{99}, meta(alpha, false, true))}, "invalid instruction data"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bh, _ := e.sim.Chain().LatestBlockhash(rpc.CommitmentConfirmed)
			bt, err := newBuiltTx(w, bh, tc.ixs)
			if err != nil {
				t.Fatal(err)
			}
			sig, err := e.rpc.SendRawTransactionWithOpts(e.ctx, assemble(t, bt.msg, sigMap(bt), testKey), rpc.TransactionOpts{SkipPreflight: true})
			if err != nil {
				t.Fatal(err)
			}
			l, ok := e.sim.Chain().Transaction(sig)
			logs := strings.Join(l.Logs, "\n")
			if !ok || l.Err == nil || !strings.Contains(strings.ToLower(logs), strings.ToLower(tc.want)) {
				t.Errorf("landed %v, err %v, logs:\n%s\nwant a failure mentioning %q", ok, l.Err, logs, tc.want)
			}
		})
	}
}

// sigMap returns the signatures a built transaction already carries, by signer.
func sigMap(bt *builtTx) map[string][]byte {
	out := map[string][]byte{}
	for i, s := range bt.sigs {
		if !s.IsZero() {
			out[bt.signers[i].String()] = s[:]
		}
	}
	return out
}
