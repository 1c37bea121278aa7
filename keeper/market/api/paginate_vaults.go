package api

import (
	"context"
	"fmt"
	"github.com/keeper-project/keeper/keeper/market"
)

// vaults is the client's service for the vaults: the listing and the depositors, one page or all.
type vaults struct {
	t *transport
}

// Vaults calls E11 (vault listing) for one page.
func (s *vaults) Vaults(ctx context.Context, q market.VaultsQuery) (*market.VaultsPage, error) {
	return fetch[market.VaultsPage](ctx, s.t, market.EndpointVaultsInfo, "", q)
}

// VaultDeposits calls E5 (vault depositors) for one page.
func (s *vaults) VaultDeposits(ctx context.Context, q market.VaultDepositsQuery) ([]market.VaultDeposits, error) {
	return list[market.VaultDeposits](ctx, s.t, market.EndpointVaultDeposits, q)
}

// AllVaultDeposits walks E5 from page 0 (q.Page is ignored) until a short page. E5 answers with a bare
// array and no pageInfo, and whether pageSize counts vault records or user deposits is not shown, so a
// page is short only when both its records and its user deposits number fewer than the page size.
// Records of one vault split across pages are merged, in first-seen order.
func (s *vaults) AllVaultDeposits(ctx context.Context, q market.VaultDepositsQuery) ([]market.VaultDeposits, error) {
	size, err := pageSize(market.EndpointVaultDeposits, q.PageSize)
	if err != nil {
		return nil, err
	}
	var out []market.VaultDeposits
	index := make(map[string]int)
	err = walkPages(market.EndpointVaultDeposits, func(page int) (bool, error) {
		q.Page, q.PageSize = &page, &size
		recs, err := s.VaultDeposits(ctx, q)
		if err != nil {
			return false, err
		}
		users := 0
		for _, r := range recs {
			users += len(r.UserDeposits)
			if i, ok := index[r.VaultAddress]; ok {
				out[i].UserDeposits = append(out[i].UserDeposits, r.UserDeposits...)
				continue
			}
			index[r.VaultAddress] = len(out)
			out = append(out, r)
		}
		return len(recs) < size && users < size, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AllVaults walks E11 from page 0 (q.Page is ignored) until pageInfo.totalPages when the service sends
// pageInfo, else until a short page. Records repeating an already seen vault address are dropped.
func (s *vaults) AllVaults(ctx context.Context, q market.VaultsQuery) ([]market.Vault, error) {
	size, err := pageSize(market.EndpointVaultsInfo, q.PageSize)
	if err != nil {
		return nil, err
	}
	var out []market.Vault
	seen := make(map[string]bool)
	err = walkPages(market.EndpointVaultsInfo, func(page int) (bool, error) {
		q.Page, q.PageSize = &page, &size
		p, err := s.Vaults(ctx, q)
		if err != nil {
			return false, err
		}
		for _, v := range p.Items {
			if v.Address != "" && seen[v.Address] {
				continue
			}
			seen[v.Address] = true
			out = append(out, v)
		}
		if p.PageInfo != nil {
			return len(p.Items) == 0 || page+1 >= p.PageInfo.TotalPages, nil
		}
		return len(p.Items) < size, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// walkPages calls read for pages 0, 1, … of ep until it reports the last page or fails, reading at
// most MaxPages pages.
func walkPages(ep string, read func(page int) (last bool, err error)) error {
	for page := 0; page < MaxPages; page++ {
		last, err := read(page)
		if err != nil {
			return &pageError{ep: ep, page: page, err: err}
		}
		if last {
			return nil
		}
	}
	return fmt.Errorf("market: %s: more than %d pages", ep, MaxPages)
}
