package sim

import (
	"cmp"
	"slices"

	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
)

// vaultsInfo serves E11: one page of vault records, in scenario order, with pageInfo.
func (a *vaultsAPI) vaultsInfo(c *call, q apiwire.VaultsQuery) (any, error) {
	views, err := a.views.strategyViews(a.clock.Now().Unix())
	if err != nil {
		return nil, err
	}
	page, size := apiwire.Paging(q.Page, q.PageSize)
	out := apiwire.VaultsPage{Items: []apiwire.Vault{}, PageInfo: apiwire.NewPageInfo(page, size, len(a.w.Vaults))}
	for _, v := range apiwire.PageOf(a.w.Vaults, page, size) {
		out.Items = append(out.Items, views[v.Strategy.Address].record(v, q.IncludeRewards))
	}
	return out, nil
}

// depositRow is one (vault, depositor) row of E5.
type depositRow struct {
	vault *programs.Vault
	dep   programs.Deposit
}

// Vault-depositor sort keys of the simulator: 0 amountSupplied, 1 userAddress.
const (
	depositSortAmount = 0
	depositSortUser   = 1
)

// vaultDeposits serves E5: depositor rows matching the filters, sorted, paged by rows, and grouped by
// vault (consecutive rows of one vault form one record).
func (a *vaultsAPI) vaultDeposits(c *call, q apiwire.VaultDepositsQuery) (any, error) {
	if err := validateDepositsQuery(q); err != nil {
		return nil, err
	}
	var rows []depositRow
	for _, v := range a.w.Vaults {
		for _, d := range v.Deposits {
			if matchDeposit(q, v, d) {
				rows = append(rows, depositRow{vault: v, dep: d})
			}
		}
	}
	sortDeposits(rows, q)
	page, size := apiwire.Paging(q.Page, q.PageSize)
	out := []apiwire.VaultDeposits{}
	for _, r := range apiwire.PageOf(rows, page, size) {
		ud := apiwire.UserDeposit{AmountSupplied: apiwire.Amount(r.dep.Amount), UserAddress: r.dep.User.String()}
		if n := len(out); n > 0 && out[n-1].VaultAddress == r.vault.Address.String() {
			out[n-1].UserDeposits = append(out[n-1].UserDeposits, ud)
			continue
		}
		out = append(out, apiwire.VaultDeposits{VaultAddress: r.vault.Address.String(), UserDeposits: []apiwire.UserDeposit{ud}})
	}
	return out, nil
}

// validateDepositsQuery checks the addresses and enum members of an E5 query.
func validateDepositsQuery(q apiwire.VaultDepositsQuery) error {
	for name, vals := range map[string][]string{"vaultAddresses": q.VaultAddresses, "lpMints": q.LpMints, "principalMints": q.PrincipalMints} {
		if err := validateAddresses(name, vals); err != nil {
			return err
		}
	}
	if q.UserAddress != "" {
		if err := validateAddresses("userAddress", []string{q.UserAddress}); err != nil {
			return err
		}
	}
	switch {
	case q.Sort != nil && *q.Sort > depositSortUser:
		return apiwire.BadRequest("sort %d is not supported (0 amountSupplied, 1 userAddress)", *q.Sort)
	case q.SortDirection != nil && *q.SortDirection > apiwire.SortDescending:
		return apiwire.BadRequest("sortDirection %d is not supported (0 ascending, 1 descending)", *q.SortDirection)
	}
	return nil
}

// matchDeposit applies the E5 filters to one row.
func matchDeposit(q apiwire.VaultDepositsQuery, v *programs.Vault, d programs.Deposit) bool {
	return apiwire.InOrEmpty(q.VaultAddresses, v.Address.String()) && apiwire.InOrEmpty(q.LpMints, v.LPMint.String()) &&
		apiwire.InOrEmpty(q.PrincipalMints, v.Strategy.Mint.Address.String()) &&
		(q.UserAddress == "" || q.UserAddress == d.User.String()) &&
		(q.StakeDuration == nil || int32(*q.StakeDuration) == d.StakeDuration) &&
		(q.Status == nil || int32(*q.Status) == d.Status)
}

// sortDeposits sorts rows by the requested key; without one, rows keep scenario order.
func sortDeposits(rows []depositRow, q apiwire.VaultDepositsQuery) {
	if q.Sort == nil {
		return
	}
	desc := q.SortDirection != nil && *q.SortDirection == apiwire.SortDescending
	slices.SortStableFunc(rows, func(a, b depositRow) int {
		var c int
		if *q.Sort == depositSortAmount {
			c = cmp.Compare(a.dep.Amount, b.dep.Amount)
		} else {
			c = cmp.Compare(a.dep.User.String(), b.dep.User.String())
		}
		if desc {
			return -c
		}
		return c
	})
}
