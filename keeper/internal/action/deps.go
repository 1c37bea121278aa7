package action

import (
	"context"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/signer"
)

// Builder is the part of the market API that builds transactions. Each
// build takes the attempt's idempotency key; a retried build with the same
// key replays. *api.Client implements it.
type Builder interface {
	BuildLoan(ctx context.Context, key market.IdempotencyKey, req market.BuildLoanRequest) (*market.BuildLoanResponse, error)
	TransferPosition(ctx context.Context, key market.IdempotencyKey, req market.TransferPositionRequest) (*market.Transaction, error)
	ClaimFees(ctx context.Context, key market.IdempotencyKey, req market.ClaimFeesRequest) (*market.Transaction, error)
	ClaimEarnWithdrawal(ctx context.Context, key market.IdempotencyKey, req market.WithdrawClaimRequest) (*market.EarnTxResponse, error)
	UpdateStrategy(ctx context.Context, key market.IdempotencyKey, req market.StrategyUpdateRequest) ([]market.Transaction, error)
	WithdrawFromStrategy(ctx context.Context, key market.IdempotencyKey, req market.WithdrawStrategyRequest) (*market.Transaction, error)
}

// Signer guards and signs transactions with the operator's key; nothing is
// signed unless the guard passes. CheckSequence and Unsigned let the action
// path guard and simulate an answer before anything is signed.
// *signer.Signer implements it.
type Signer interface {
	PublicKey() solana.PublicKey
	SignTip(message []byte, tipAccounts []string, maxTip uint64) (*signer.Signed, error)
	CheckSequence(txs []*signer.Tx, kind signer.Kind, b signer.Bounds) error
	Unsigned(tx *signer.Tx) ([]byte, error)
	SignSequence(txs []*signer.Tx, kind signer.Kind, b signer.Bounds) ([]*signer.Signed, error)
	SpendAt(tx *signer.Tx, i int) (string, bool)
	CheckAs(authority solana.PublicKey, txs []*signer.Tx, kind signer.Kind, b signer.Bounds) error
	SignProposal(message []byte, program solana.PublicKey, maxUnitPrice uint64) (*signer.Signed, error)
}

// Submitter simulates, lands and settles transactions. Simulate and
// SimulateSequence are given transactions unsigned by our key, and run
// them without signature verification. *chain.Client implements it.
type Submitter interface {
	Simulate(ctx context.Context, raw []byte, wallet solana.PublicKey) (*chain.SimResult, error)
	SimulateSequence(ctx context.Context, raws [][]byte, wallet solana.PublicKey) ([]*chain.SimResult, error)
	SendAndConfirm(ctx context.Context, txs []chain.Signed) (chain.Result, error)
	SendBundle(ctx context.Context, txs []chain.Signed, tip chain.TipFunc, pol chain.TipPolicy) (chain.Result, error)
	Settle(ctx context.Context, attempts [][]chain.TxRef) (chain.Settlement, error)
	Statuses(ctx context.Context, sigs []solana.Signature) ([]chain.Status, error)
	MultipleAccounts(ctx context.Context, keys []solana.PublicKey) ([][]byte, error)
}

// Log is the journal as the action path writes and reads it: every step
// of an action is journaled before the next one leaves the process, the
// intent and the signatures durably (the journal's package doc says how
// the other records commit). *journal.Journal implements it.
type Log interface {
	Begin(ctx context.Context, in journal.Intent) (journal.Action, bool, error)
	Start(ctx context.Context, in journal.Intent) (journal.Action, journal.Attempt, bool, error)
	NewAttempt(ctx context.Context, id string) (journal.Attempt, error)
	RecordBuilt(ctx context.Context, id string, attempt int, b journal.Build) error
	RecordSigned(ctx context.Context, id string, attempt int, sigs []journal.SignedTx) error
	RecordSubmitted(ctx context.Context, id string, attempt int) error
	RecordTip(ctx context.Context, id string, attempt int, t journal.Tip) error
	Settle(ctx context.Context, id string, attempt int, out journal.Outcome) error
	Finish(ctx context.Context, id string, out journal.Outcome) error
	RecordCheck(ctx context.Context, id, detail string) error
	Get(ctx context.Context, id string) (journal.Action, error)
	List(ctx context.Context, f journal.Filter) ([]journal.Action, error)
	// The Squads proposals of proposal mode, each journaled before the
	// transaction that creates it is sent.
	RecordProposal(ctx context.Context, p journal.Proposal) error
	UpdateProposal(ctx context.Context, multisig string, index uint64, u journal.ProposalUpdate) error
	Proposals(ctx context.Context, f journal.ProposalFilter) ([]journal.Proposal, error)
}

// That *api.Client, *signer.Signer, *chain.Client and *journal.Journal
// implement these is checked where they are wired, in package keeper,
// whose interfaces embed them.
