package sim

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
	"github.com/keeper-project/keeper/keeper/sim/internal/txbuild"
)

// txBuilder builds the transactions of the market's writes, co-signed, with the hostile changes the
// market faults ask for.
type txBuilder struct {
	chain  *chainsim.Chain
	faults *faults.State
}

// build compiles groups of instructions into co-signed transactions with the call's payer as fee
// payer and the chain's confirmed blockhash. It consumes the next hostile mode, which changes the last
// transaction, the one carrying the operation (HostileSecondDrains appends one instead); mint is the token a hostile transaction targets. The
// caller holds the market's lock.
func (b *txBuilder) build(c *call, mint solana.PublicKey, groups ...[]txbuild.Instruction) ([]*txbuild.Tx, error) {
	bh, _ := b.chain.Ledger.LatestBlockhash(rpc.CommitmentConfirmed)
	hostile := b.faults.NextHostile()
	if hostile == faults.HostileSecondDrains {
		groups = append(groups, faults.DrainIxs(c.wallet))
		hostile = faults.HostileNone
	}
	out := make([]*txbuild.Tx, 0, len(groups))
	for i, g := range groups {
		payer := c.payer
		if i == len(groups)-1 {
			g, payer = faults.Hostilize(hostile, c.wallet, payer, mint, g)
		}
		t, err := txbuild.NewTx(payer, bh, g)
		if err != nil {
			return nil, fmt.Errorf("build transaction %d: %w", i, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// one builds the single transaction of an operation and returns its API object.
func (b *txBuilder) one(c *call, mint solana.PublicKey, ixs []txbuild.Instruction) (apiwire.Transaction, error) {
	txs, err := b.build(c, mint, ixs)
	if err != nil {
		return apiwire.Transaction{}, err
	}
	return txs[0].ApiTransaction(), nil
}

// marketIx returns a market-program instruction whose first accounts are the user (signer, writable)
// and the co-signer (read-only signer). For a user that is a program address (a multisig's vault,
// which signs only when its program executes the instruction, in a transaction the market never
// sees), the co-signer is passed without signing: an assumption of the simulator
// (docs/assumptions.md, "co-signer of a program-address authority").
func marketIx(user solana.PublicKey, data []byte, rest ...solana.AccountMeta) txbuild.Instruction {
	accts := append([]solana.AccountMeta{txbuild.Meta(user, true, true), txbuild.Meta(ids.CoSigner(), user.IsOnCurve(), false)}, rest...)
	return txbuild.Instruction{Program: ids.MarketProgramID, Data: data, Accounts: accts}
}

// writeTarget resolves the address of the loan, strategy or position (kind) that a write names in its
// member field: it must be given, base58 and known.
func writeTarget[T any](field, kind, address string, byAddr map[solana.PublicKey]T) (T, error) {
	var zero T
	if address == "" {
		return zero, apiwire.BadRequest("%s is required", field)
	}
	k, err := solana.PublicKeyFromBase58(address)
	if err != nil {
		return zero, apiwire.BadRequest("%s %q is not a base58 address", field, address)
	}
	info, ok := byAddr[k]
	if !ok {
		return zero, apiwire.BadRequest("unknown %s %s", kind, address)
	}
	return info, nil
}

// readTarget resolves the loan or strategy (kind) a write names and reads its account.
func readTarget[T, S any](kind, address string, byAddr map[solana.PublicKey]T, read func(T) (S, error)) (T, S, error) {
	var st S
	info, err := writeTarget(kind, kind, address, byAddr)
	if err == nil {
		st, err = read(info)
	}
	return info, st, err
}

// loanFor resolves a loan address for a write and checks that the caller is its borrower.
func loanFor(wd *world, c *call, address string) (*programs.Loan, *state.Loan, error) {
	info, st, err := readTarget("loan", address, wd.w.LoanByAddr, wd.accts.loan)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case st.Borrower != c.wallet.String():
		return nil, nil, apiwire.Unauthorized("wallet %s is not the borrower of loan %s", c.wallet, address)
	case st.Closed:
		return nil, nil, apiwire.BadRequest("loan %s is closed", address)
	}
	return info, st, nil
}

// strategyFor resolves a strategy address for a write and checks that the caller is its authority.
func strategyFor(wd *world, c *call, address string) (*programs.Strategy, *state.Strategy, error) {
	info, st, err := readTarget("strategy", address, wd.w.StratByAdr, wd.accts.strategy)
	if err != nil {
		return nil, nil, err
	}
	if st.Authority != c.wallet.String() {
		return nil, nil, apiwire.Unauthorized("wallet %s is not the authority of strategy %s", c.wallet, address)
	}
	return info, st, nil
}
