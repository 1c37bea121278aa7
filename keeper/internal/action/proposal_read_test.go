package action

import (
	"context"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/squads"
)

// answeringNode is a chain client whose account reads answer data,
// whatever was asked.
type answeringNode struct {
	Submitter
	data [][]byte
}

func (n answeringNode) MultipleAccounts(context.Context, []solana.PublicKey) ([][]byte, error) {
	return n.data, nil
}

// TestProposalReadsSayWhatTheNodeAnswered: a read of the multisig, the
// vault transaction or the lookup tables that the node answers with too
// few accounts, or without the account asked for, fails saying so (before,
// a nil error was wrapped: "%!w(<nil>)").
func TestProposalReadsSayWhatTheNodeAnswered(t *testing.T) {
	ms := solana.PublicKey{7}
	r := journal.Proposal{Multisig: ms.String(), Index: 1}
	short := &Executor{cfg: Config{Submitter: answeringNode{}}}
	missing := &Executor{cfg: Config{Submitter: answeringNode{data: [][]byte{nil}}}}
	ctx := t.Context()
	_, proposalErr := short.readProposal(ctx, r)
	_, _, shortTxErr := short.readVaultTransaction(ctx, ms, r)
	_, _, missingTxErr := missing.readVaultTransaction(ctx, ms, r)
	_, tablesErr := short.lookupTables(ctx, &squads.Message{Lookups: []squads.Lookup{{Table: solana.PublicKey{9}}}})
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"proposal", proposalErr, "reading the multisig, the proposal and the clock: the node answered 0 accounts of 3"},
		{"vault transaction, short", shortTxErr, "reading the vault transaction: the node answered 0 accounts of 1"},
		{"vault transaction, missing", missingTxErr, "no such account"},
		{"lookup tables", tablesErr, "reading the lookup tables: the node answered 0 accounts of 1"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) || strings.Contains(c.err.Error(), "%!") {
			t.Errorf("%s: error %v, want one saying %q", c.name, c.err, c.want)
		}
	}
}
