package sim

import (
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/txbuild"
)

// TestProgramsCheckAuthority sends transactions the market would never build: the programs refuse
// them on chain (they land failed, with a log line saying why).
func TestProgramsCheckAuthority(t *testing.T) {
	e := newEnv(t, Options{})
	w := testWallet()
	a := func(kind, name string) solana.PublicKey { return e.addr(t, kind, name) }
	usdc, beta, alpha := a(ids.KindMint, "USDC"), a(ids.KindStrategy, "beta"), a(ids.KindStrategy, "alpha")
	repayAlice := func(user solana.PublicKey) txbuild.Instruction {
		return marketIx(user, instr.RepayOp{Amount: 1}.Encode(), txbuild.Meta(a(ids.KindLoan, "alice-sol"), false, true), txbuild.Meta(alpha, false, false),
			txbuild.Meta(txbuild.Ata(user, usdc), false, true), txbuild.Meta(txbuild.Ata(alpha, usdc), false, true), txbuild.Meta(usdc, false, false), txbuild.Meta(solana.TokenProgramID, false, false))
	}
	noCoSigner := repayAlice(w)
	noCoSigner.Accounts[1] = txbuild.Meta(ids.CoSigner(), false, false)
	posA, _, _ := e.sim.Accounts().Position(a(ids.KindPosition, "pos-a"))
	posAddr := e.sim.w.PosByMint[a(ids.KindPosition, "pos-a")].Address
	tests := []struct {
		name string
		ixs  []txbuild.Instruction
		want string
	}{
		{"repay another's loan", []txbuild.Instruction{repayAlice(w)}, "is not the borrower of loan"},
		{"no co-signature", []txbuild.Instruction{noCoSigner}, "co-signer"},
		{"update another's strategy", []txbuild.Instruction{updateIx(w, beta, []instr.TermItem{{Kind: instr.ItemSetParam, Param: instr.ParamOriginationsEnabled}})},
			"is not the authority of strategy"},
		{"claim another's request", []txbuild.Instruction{{Program: ids.EarnProgramID, Data: []byte{instr.EarnOpClaim}, Accounts: []solana.AccountMeta{
			txbuild.Meta(w, true, true), txbuild.Meta(ids.CoSigner(), true, false), txbuild.Meta(a(ids.KindRequest, "usdc-earn/r-alice"), false, true),
			txbuild.Meta(a(ids.KindEarn, "usdc-earn"), false, false), txbuild.Meta(txbuild.Ata(a(ids.KindEarn, "usdc-earn"), usdc), false, true),
			txbuild.Meta(txbuild.Ata(w, usdc), false, true), txbuild.Meta(usdc, false, false), txbuild.Meta(solana.TokenProgramID, false, false)}}},
			"belongs to another wallet"},
		{"dex without co-signer", []txbuild.Instruction{{Program: ids.DexAProgramID, Data: instr.EncodeTransferRange(posA.Range.Lower-10, posA.Range.Upper),
			Accounts: []solana.AccountMeta{txbuild.Meta(posAddr, false, true), txbuild.Meta(posA.Pool, false, false), txbuild.Meta(w, true, false)}}},
			"co-signer must sign"},
		{"unknown instruction", []txbuild.Instruction{marketIx(w, []byte{99}, txbuild.Meta(alpha, false, true))}, "invalid instruction data"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bh, _ := e.sim.Chain().Ledger.LatestBlockhash(rpc.CommitmentConfirmed)
			bt, err := txbuild.NewTx(w, bh, tc.ixs)
			if err != nil {
				t.Fatal(err)
			}
			sig, err := e.rpc.SendRawTransactionWithOpts(e.ctx, assemble(t, bt.Msg, sigMap(bt), testKey), rpc.TransactionOpts{SkipPreflight: true})
			if err != nil {
				t.Fatal(err)
			}
			l, ok := e.sim.Chain().Ledger.Transaction(sig)
			logs := strings.Join(l.Logs, "\n")
			if !ok || l.Err == nil || !strings.Contains(strings.ToLower(logs), strings.ToLower(tc.want)) {
				t.Errorf("landed %v, err %v, logs:\n%s\nwant a failure mentioning %q", ok, l.Err, logs, tc.want)
			}
		})
	}
}

// sigMap returns the signatures a built transaction already carries, by signer.
func sigMap(bt *txbuild.Tx) map[string][]byte {
	out := map[string][]byte{}
	for i, s := range bt.Sigs {
		if !s.IsZero() {
			out[bt.Signers[i].String()] = s[:]
		}
	}
	return out
}
