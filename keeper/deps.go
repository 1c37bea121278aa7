package keeper

import (
	"context"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/signer"
)

// Market is the part of the lending market API keeper calls. Builds take the
// action's idempotency key; a retried build with the same key replays.
// *market.Client implements it.
type Market interface {
	AllLoans(ctx context.Context, q market.LoansQuery) (*market.LoansSnapshot, error)
	AllVaults(ctx context.Context, q market.VaultsQuery) ([]market.Vault, error)
	BestQuotes(ctx context.Context, req market.QuoteRequest) ([]market.Quote, error)
	Loops(ctx context.Context, q market.LoopsQuery) ([]market.Loop, error)
	EarnPosition(ctx context.Context, req market.EarnPositionRequest) (*market.EarnPosition, error)
	WithdrawalQueue(ctx context.Context, req market.WithdrawalQueueRequest) (*market.WithdrawalQueue, error)

	BuildLoan(ctx context.Context, key market.IdempotencyKey, req market.BuildLoanRequest) (*market.BuildLoanResponse, error)
	TransferPosition(ctx context.Context, key market.IdempotencyKey, req market.TransferPositionRequest) (*market.Transaction, error)
	ClaimFees(ctx context.Context, key market.IdempotencyKey, req market.ClaimFeesRequest) (*market.Transaction, error)
	ClaimEarnWithdrawal(ctx context.Context, key market.IdempotencyKey, req market.WithdrawClaimRequest) (*market.EarnTxResponse, error)
	UpdateStrategy(ctx context.Context, key market.IdempotencyKey, req market.StrategyUpdateRequest) ([]market.Transaction, error)
	WithdrawFromStrategy(ctx context.Context, key market.IdempotencyKey, req market.WithdrawStrategyRequest) (*market.Transaction, error)
}

// Signer guards and signs transactions with the operator's key; nothing is
// signed unless the guard passes. *signer.Signer implements it.
type Signer interface {
	PublicKey() solana.PublicKey
	Check(tx *signer.Tx, kind signer.Kind, b signer.Bounds) error
	Sign(tx *signer.Tx, kind signer.Kind, b signer.Bounds) (*signer.Signed, error)
	SignTip(message []byte, tipAccounts []string, maxTip uint64) (*signer.Signed, error)
	SignSequence(txs []*signer.Tx, kind signer.Kind, b signer.Bounds) ([]*signer.Signed, error)
	SpendAt(tx *signer.Tx, i int) (string, bool)
}

// Submitter simulates, lands and settles transactions. *chain.Client
// implements it.
type Submitter interface {
	Simulate(ctx context.Context, raw []byte, wallet solana.PublicKey) (*chain.SimResult, error)
	SimulateSequence(ctx context.Context, raws [][]byte, wallet solana.PublicKey) ([]*chain.SimResult, error)
	SendAndConfirm(ctx context.Context, txs []chain.Signed) (chain.Result, error)
	SendBundle(ctx context.Context, txs []chain.Signed, tip chain.TipFunc, pol chain.TipPolicy) (chain.Result, error)
	Settle(ctx context.Context, attempts [][]chain.TxRef) (chain.Settlement, error)
	Statuses(ctx context.Context, sigs []solana.Signature) ([]chain.Status, error)
	Balance(ctx context.Context, wallet solana.PublicKey) (uint64, error)
	MultipleAccounts(ctx context.Context, keys []solana.PublicKey) ([][]byte, error)
}

// Journal records every action durably. *journal.Journal implements it.
type Journal interface {
	Begin(ctx context.Context, in journal.Intent) (journal.Action, bool, error)
	NewAttempt(ctx context.Context, id string) (journal.Attempt, error)
	RecordBuilt(ctx context.Context, id string, attempt int, b journal.Build) error
	RecordSigned(ctx context.Context, id string, attempt int, sigs []journal.SignedTx) error
	RecordSubmitted(ctx context.Context, id string, attempt int) error
	RecordTip(ctx context.Context, id string, attempt int, t journal.Tip) error
	Settle(ctx context.Context, id string, attempt int, out journal.Outcome) error
	Finish(ctx context.Context, id string, out journal.Outcome) error
	Get(ctx context.Context, id string) (journal.Action, error)
	Pending(ctx context.Context) ([]journal.Action, error)
	List(ctx context.Context, f journal.Filter) ([]journal.Action, error)
	Writable(ctx context.Context) error
	LastLanded(ctx context.Context, policy, target string) (time.Time, bool, error)
	SpentSince(ctx context.Context, since time.Time, mint string) (uint64, error)
	FeesSince(ctx context.Context, since time.Time) (uint64, error)
	CountSince(ctx context.Context, policy string, since time.Time) (int, error)
	Close() error
}

var (
	_ Market    = (*market.Client)(nil)
	_ Signer    = (*signer.Signer)(nil)
	_ Submitter = (*chain.Client)(nil)
	_ Journal   = (*journal.Journal)(nil)
)
