package keeper

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/report"
	"github.com/keeper-project/keeper/policies"
)

// Reports reads what `keeper report` shows vault operators. It signs and
// journals nothing.
type Reports struct {
	obs *observer
	now func() time.Time
}

// Reports returns the read-only reports over k's market and chain.
func (k *Keeper) Reports() *Reports { return &Reports{obs: k.obs, now: k.now} }

// RewardsRequest asks for a reward budget split by time-weighted
// collateral (E7) over [From, To).
type RewardsRequest struct {
	// Mint is the collateral mint, or the pool id of CLMM/LP collateral.
	Mint     string
	From, To time.Time
	// Budget is the reward to split: smallest units, or whole tokens with
	// the reward mint's symbol or address.
	Budget policies.Amount
	// RewardMint is the mint the budget is paid in; empty: the budget's
	// unit when it is a mint address, or the config token with its symbol.
	RewardMint string
	// ByLoan keys holders by loan address instead of borrower wallet (E7
	// pdas).
	ByLoan bool
}

// RewardsReport is a reward budget split among collateral holders.
type RewardsReport struct {
	Mint       string    `json:"mint"`
	From       time.Time `json:"from"`
	To         time.Time `json:"to"`
	ByLoan     bool      `json:"by_loan"`
	RewardMint string    `json:"reward_mint,omitempty"`
	// Budget is in the reward mint's smallest units.
	Budget uint64                    `json:"budget"`
	Shares []report.Share            `json:"shares"`
	Tokens map[string]policies.Token `json:"tokens,omitempty"`
}

// Rewards splits req.Budget among the holders of req.Mint's collateral in
// proportion to their deposit-seconds over the range (report.Split says
// how the remainder is assigned). Records for the mint on several E7
// elements are added up per holder.
func (r *Reports) Rewards(ctx context.Context, req RewardsRequest) (*RewardsReport, error) {
	if !req.From.Before(req.To) {
		return nil, fmt.Errorf("the range's end %s is not after its start %s", req.To.Format(time.RFC3339), req.From.Format(time.RFC3339))
	}
	if req.To.After(r.now()) {
		return nil, fmt.Errorf("the range ends at %s, in the future: deposit-seconds after now are not known yet", req.To.Format(time.RFC3339))
	}
	rewardMint, err := r.rewardMint(req)
	if err != nil {
		return nil, err
	}
	tokens := r.obs.describe(ctx, []string{rewardMint})
	budget, err := req.Budget.Units(rewardMint, tokens)
	if err != nil {
		return nil, fmt.Errorf("budget: %w", err)
	}
	recs, err := r.obs.market.HistoricalHolders(ctx, market.HoldersRequest{Mint: req.Mint,
		RangeStart: market.UnixTimeOf(req.From), RangeEnd: market.UnixTimeOf(req.To), Pdas: req.ByLoan})
	if err != nil {
		return nil, fmt.Errorf("reading the holders of %s: %w", req.Mint, err)
	}
	weights, err := holderWeights(recs, req.Mint)
	if err != nil {
		return nil, err
	}
	shares, err := report.Split(weights, budget)
	if err != nil {
		return nil, fmt.Errorf("splitting the budget among the holders of %s: %w", req.Mint, err)
	}
	return &RewardsReport{Mint: req.Mint, From: req.From.UTC(), To: req.To.UTC(), ByLoan: req.ByLoan,
		RewardMint: rewardMint, Budget: budget, Shares: shares, Tokens: tokens}, nil
}

// rewardMint resolves the mint the budget is paid in.
func (r *Reports) rewardMint(req RewardsRequest) (string, error) {
	if req.RewardMint != "" {
		return req.RewardMint, nil
	}
	if !req.Budget.HasUnit() {
		return "", nil
	}
	unit := req.Budget.Unit()
	if _, err := solana.PublicKeyFromBase58(unit); err == nil {
		return unit, nil
	}
	var found []string
	for mint, t := range r.obs.configTokens {
		if t.Symbol != "" && strings.EqualFold(t.Symbol, unit) {
			found = append(found, mint)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("budget: no mint has the symbol %q in the config's tokens: write the reward mint's address, or pass --reward-mint", unit)
	}
	slices.Sort(found)
	return "", fmt.Errorf("budget: the symbol %q names several mints in the config's tokens (%v): pass --reward-mint", unit, found)
}

// holderWeights adds up the deposit-seconds per holder of the records for
// mint; a record for another mint is a bad answer.
func holderWeights(recs []market.CollateralHolder, mint string) (map[string]*big.Rat, error) {
	sums := map[string]*big.Rat{}
	for _, rec := range recs {
		if rec.CollateralMint != "" && rec.CollateralMint != mint {
			return nil, fmt.Errorf("market: %s: a record for %s in the answer for %s", market.EndpointHistoricalHolders, rec.CollateralMint, mint)
		}
		for h, ds := range rec.UserDepositSeconds {
			if sums[h] == nil {
				sums[h] = new(big.Rat)
			}
			sums[h].Add(sums[h], ds.Rat())
		}
	}
	if len(sums) == 0 {
		return nil, errors.New("no holder of this collateral in the range (E7 answered no deposit-seconds)")
	}
	return sums, nil
}

// DepositorsRequest filters `report depositors`: vault addresses and one
// user, both optional.
type DepositorsRequest struct {
	Vaults []string
	User   string
}

// DepositorsReport lists each vault's depositors.
type DepositorsReport struct {
	Vaults []report.VaultDepositors  `json:"vaults"`
	Tokens map[string]policies.Token `json:"tokens,omitempty"`
}

// Depositors reads every page of E5 for the filters and groups the
// deposits by vault, with the vaults' principal mints from E11.
func (r *Reports) Depositors(ctx context.Context, req DepositorsRequest) (*DepositorsReport, error) {
	recs, err := r.obs.market.AllVaultDeposits(ctx, market.VaultDepositsQuery{VaultAddresses: req.Vaults, UserAddress: req.User})
	if err != nil {
		return nil, fmt.Errorf("reading the vaults' depositors: %w", err)
	}
	vaults, err := r.obs.market.AllVaults(ctx, market.VaultsQuery{})
	if err != nil {
		return nil, fmt.Errorf("reading the vaults: %w", err)
	}
	principal := make(map[string]string, len(vaults))
	for _, v := range vaults {
		principal[v.Address] = v.PrincipalMint
	}
	out, err := report.Depositors(recs, principal)
	if err != nil {
		return nil, err
	}
	mints := slices.Collect(maps.Values(principal))
	return &DepositorsReport{Vaults: out, Tokens: r.obs.describe(ctx, mints)}, nil
}

// VaultsReport is every vault with its metrics and loops.
type VaultsReport struct {
	Vaults []policies.VaultView      `json:"vaults"`
	Tokens map[string]policies.Token `json:"tokens,omitempty"`
}

// Vaults reads every vault (E11) with its rewards, prices the reward and
// principal mints as policies do, and reads the loops (E12) of each vault's
// principal and collaterals; the metrics follow the spec's Metric rules.
func (r *Reports) Vaults(ctx context.Context) (*VaultsReport, error) {
	obs, err := r.obs.observeAfresh(ctx, nil, policies.Reads{Vaults: true, Loops: true})
	if err != nil {
		return nil, fmt.Errorf("reading the vaults: %w", err)
	}
	return &VaultsReport{Vaults: obs.VaultViews(r.now()), Tokens: obs.Tokens}, nil
}
