package keeper

import (
	"context"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/signer"
)

// Market is the part of the lending market API keeper calls: the reads a
// run observes, and the builds of the action path. *api.Client
// implements it.
type Market interface {
	// LoanPages walks E3's pages, handing each to visit in page order
	// (api.Client.LoanPages says how a walk is read again).
	LoanPages(ctx context.Context, q market.LoansQuery, visit func(walk int, p *market.LoansPage) error) error
	AllVaults(ctx context.Context, q market.VaultsQuery) ([]market.Vault, error)
	BestQuotes(ctx context.Context, req market.QuoteRequest) ([]market.Quote, error)
	Loops(ctx context.Context, q market.LoopsQuery) ([]market.Loop, error)
	AllVaultDeposits(ctx context.Context, q market.VaultDepositsQuery) ([]market.VaultDeposits, error)
	HistoricalHolders(ctx context.Context, req market.HoldersRequest) ([]market.CollateralHolder, error)
	EarnPosition(ctx context.Context, req market.EarnPositionRequest) (*market.EarnPosition, error)
	WithdrawalQueue(ctx context.Context, req market.WithdrawalQueueRequest) (*market.WithdrawalQueue, error)
	action.Builder
	// ForWallet returns a client that builds for another wallet, a
	// multisig vault whose transactions keeper proposes.
	ForWallet(wallet string) (*api.Client, error)
}

// Signer guards and signs transactions with the operator's key; nothing is
// signed unless the guard passes. *signer.Signer implements it.
type Signer = action.Signer

// Submitter simulates, lands and settles transactions, and reads the
// accounts and balance keeper observes. *chain.Client implements it.
type Submitter interface {
	action.Submitter
	action.FeeMarket
	accountReader
	// Slot reads the node's slot; with MultipleAccounts, what the
	// triggers' watcher polls while the websocket does not serve.
	Slot(ctx context.Context) (uint64, error)
	// LatestBlockhash reads the blockhash keeper's own Squads transactions
	// are signed with.
	LatestBlockhash(ctx context.Context) (chain.Blockhash, error)
	Balance(ctx context.Context, wallet solana.PublicKey) (uint64, error)
	// TipAccounts returns the block engine's tip accounts, kept after the
	// first answer for the bundles' tips and refreshed when an hour old
	// (see prefetchTips).
	TipAccounts(ctx context.Context) ([]solana.PublicKey, error)
}

// Journal records every action durably: the action path's log, and what
// recovery, upkeep, alerts, triggers and leadership ask of it.
// *journal.Journal implements it; tests wrap it to inject faults.
type Journal interface {
	action.Log
	triggerLog
	leaseJournal
	// Pending lists the actions that are not final, for recovery.
	Pending(ctx context.Context) ([]journal.Action, error)
	// Writable reports whether the journal takes writes, for /readyz.
	Writable(ctx context.Context) error
	// OpenIncident and ResolveIncidents keep alert incidents across
	// restarts and passes.
	OpenIncident(ctx context.Context, in journal.Incident) (journal.Incident, bool, error)
	ResolveIncidents(ctx context.Context, policy string, cleared []string) ([]journal.Incident, error)
	Incidents(ctx context.Context, f journal.IncidentFilter) ([]journal.Incident, error)
	// Own makes this process the only owner of an SQLite journal (a no-op
	// for a shared or in-memory one).
	Own() error
	// Prune deletes the final actions settled before cutoff.
	Prune(ctx context.Context, cutoff time.Time) (int, error)
}

var (
	_ Market    = (*api.Client)(nil)
	_ Signer    = (*signer.Signer)(nil)
	_ Submitter = (*chain.Client)(nil)
	_ Journal   = (*journal.Journal)(nil)
)
