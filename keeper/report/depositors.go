package report

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/keeper-project/keeper/keeper/market"
)

// VaultDepositors are the depositors of one vault (E5).
type VaultDepositors struct {
	Vault string `json:"vault"`
	// PrincipalMint is the vault's principal mint, when the vault listing
	// (E11) names the vault; amounts are its smallest units.
	PrincipalMint string `json:"principal_mint,omitempty"`
	// Total is the sum of the users' supplied amounts.
	Total uint64 `json:"total"`
	// Users are ordered by amount, largest first, then by address.
	Users []Depositor `json:"users"`
}

// Depositor is one user's deposit in a vault.
type Depositor struct {
	User     string  `json:"user"`
	Supplied uint64  `json:"supplied"`
	Fraction float64 `json:"fraction"` // of the vault's total
}

// Depositors groups E5 records by vault, whatever page each came on: a
// vault's users may be split across pages, and a user listed twice for a
// vault (E5 may list a user once per position) has the amounts added.
// principal maps vault addresses to principal mints (from E11). Vaults are
// ordered by total, largest first, then by address. A total that does not
// fit in 64 bits is an error.
func Depositors(recs []market.VaultDeposits, principal map[string]string) ([]VaultDepositors, error) {
	byVault := map[string]map[string]*big.Int{}
	for _, r := range recs {
		users := byVault[r.VaultAddress]
		if users == nil {
			users = map[string]*big.Int{}
			byVault[r.VaultAddress] = users
		}
		for _, u := range r.UserDeposits {
			if users[u.UserAddress] == nil {
				users[u.UserAddress] = new(big.Int)
			}
			users[u.UserAddress].Add(users[u.UserAddress], new(big.Int).SetUint64(uint64(u.AmountSupplied)))
		}
	}
	out := make([]VaultDepositors, 0, len(byVault))
	for vault, users := range byVault {
		vd, err := vaultDepositors(vault, users)
		if err != nil {
			return nil, err
		}
		vd.PrincipalMint = principal[vault]
		out = append(out, vd)
	}
	slices.SortFunc(out, func(a, b VaultDepositors) int {
		if c := cmp.Compare(b.Total, a.Total); c != 0 {
			return c
		}
		return strings.Compare(a.Vault, b.Vault)
	})
	return out, nil
}

// vaultDepositors totals one vault's users.
func vaultDepositors(vault string, users map[string]*big.Int) (VaultDepositors, error) {
	total := new(big.Int)
	for _, amt := range users {
		total.Add(total, amt)
	}
	if !total.IsUint64() {
		return VaultDepositors{}, fmt.Errorf("vault %s: deposits total %s, more than 64 bits", vault, total)
	}
	vd := VaultDepositors{Vault: vault, Total: total.Uint64(), Users: make([]Depositor, 0, len(users))}
	for user, amt := range users {
		d := Depositor{User: user, Supplied: amt.Uint64()}
		if vd.Total > 0 {
			d.Fraction, _ = new(big.Rat).SetFrac(amt, total).Float64()
		}
		vd.Users = append(vd.Users, d)
	}
	slices.SortFunc(vd.Users, func(a, b Depositor) int {
		if c := cmp.Compare(b.Supplied, a.Supplied); c != 0 {
			return c
		}
		return strings.Compare(a.User, b.User)
	})
	return vd, nil
}
