package keeper

import (
	"log/slog"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/tokens"
	"github.com/keeper-project/keeper/policies"
)

// observer reads what policies decide from: the market's loans, vaults,
// quotes and withdrawal queues, CLMM positions and mints from the chain,
// and prices. The policies of one tick share its reads.
type observer struct {
	market Market
	wallet solana.PublicKey
	now    func() time.Time
	logger *slog.Logger

	reads *readCache // reads shared by the policies of one tick
	dexes []clmm.Dex // dex-a and dex-b, with their programs from config
	// positions reads CLMM positions; it remembers their tick arrays so a
	// later read takes one getMultipleAccounts call.
	positions *clmm.Reader
	// tokenBook learns mints' decimals and symbols from the chain (nil
	// when the submitter cannot read accounts with their owners).
	tokenBook *tokens.Book
	// configTokens is what the config's tokens: says of mints.
	configTokens map[string]policies.Token
	prices       *pricer
}
