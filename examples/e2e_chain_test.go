package examples_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"
)

// tipCapLamports is claim-withdrawals.yaml's tip_lamports: no tip may pay more.
const tipCapLamports = 50_000

// tipAccounts asks the simulated block engine for its tip accounts, as keeper does.
func (s *simProc) tipAccounts(t *testing.T) []solana.PublicKey {
	t.Helper()
	accounts := s.state(t).TipAccounts // not through the engine, which limits each client's rate
	out := make([]solana.PublicKey, len(accounts))
	for i, a := range accounts {
		out[i] = solana.MustPublicKeyFromBase58(a)
	}
	return out
}

// readThroughFaults runs a read of the test's own, retrying it (each try bounded in time) while the
// simulator injects faults into the service it reads; it fails the test when 50 tries all fail.
func readThroughFaults(t *testing.T, what string, read func(ctx context.Context) error) {
	t.Helper()
	var err error
	for range 50 {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		err = read(ctx)
		cancel()
		if err == nil {
			return
		}
	}
	t.Fatalf("%s: %v", what, err)
}

// checkTip fails the test unless the landed transaction sig, journaled as a tip of lamports, is
// that tip: nothing but one System transfer (beside compute-budget settings) of lamports, at most
// tipCapLamports, from the wallet to a tip account.
func (s *simProc) checkTip(t *testing.T, sig string, lamports uint64) {
	t.Helper()
	var res *rpc.GetTransactionResult
	readThroughFaults(t, "getTransaction "+sig, func(ctx context.Context) (err error) {
		res, err = rpc.New(s.urls.RPC).GetTransaction(ctx, solana.MustSignatureFromBase58(sig),
			&rpc.GetTransactionOpts{Encoding: solana.EncodingBase64, Commitment: rpc.CommitmentConfirmed})
		if err == nil && res.Transaction == nil {
			err = errors.New("no transaction in the answer")
		}
		return err
	})
	tx, err := res.Transaction.GetTransaction()
	if err != nil {
		t.Fatalf("decode %s: %v", sig, err)
	}
	tips, wallet := s.tipAccounts(t), solana.MustPublicKeyFromBase58(s.wallet)
	transfers := 0
	for _, ix := range tx.Message.Instructions {
		program, err := tx.Message.Program(ix.ProgramIDIndex)
		if err != nil {
			t.Fatalf("%s: %v", sig, err)
		}
		if program.Equals(solana.ComputeBudget) {
			continue
		}
		accounts, err := ix.ResolveInstructionAccounts(&tx.Message)
		if err != nil || !program.Equals(solana.SystemProgramID) {
			t.Errorf("journaled tip %s calls %s: it is not a tip", sig, program)
			continue
		}
		inst, err := system.DecodeInstruction(accounts, ix.Data)
		tr, ok := inst.Impl.(*system.Transfer)
		if err != nil || !ok || tr.Lamports == nil {
			t.Errorf("journaled tip %s holds a System instruction other than a transfer", sig)
			continue
		}
		transfers++
		from, to := tr.GetFundingAccount().PublicKey, tr.GetRecipientAccount().PublicKey
		if !from.Equals(wallet) || !slices.Contains(tips, to) || *tr.Lamports != lamports || lamports > tipCapLamports {
			t.Errorf("journaled tip %s transfers %d lamports from %s to %s: want the journaled %d (at most %d) from the wallet to a tip account",
				sig, *tr.Lamports, from, to, lamports, tipCapLamports)
		}
	}
	if transfers != 1 {
		t.Errorf("journaled tip %s holds %d transfers, want one", sig, transfers)
	}
}
