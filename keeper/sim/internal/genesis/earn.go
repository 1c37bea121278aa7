package genesis

import (
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// EarnRequestRent is the lamports a withdrawal request account holds; a claim returns them to the
// wallet.
const EarnRequestRent = 1_447_680

// earn compiles the earn vaults, their reserves and their withdrawal request accounts.
func (c *earnCompiler) earn() {
	for i, es := range c.sc.Earn {
		at := p("earn", i)
		if !c.uniqueName(at, "earn vault", i, es.Name, earnNamed(c.w, es.Name) != nil) {
			continue
		}
		m := c.mint(es.Mint, append(at, "mint"), "mint")
		if m == nil {
			continue
		}
		v := &programs.Earn{Name: es.Name, Mint: m, Address: c.derive(ids.EarnProgramID, "vault", es.Name, append(at, "name"))}
		if amt := c.units(es.Reserves, m, append(at, "reserves")); amt > 0 {
			c.gen.Tokens = append(c.gen.Tokens, Grant{Wallet: v.Address, Mint: m.Address, Amount: amt})
		}
		for j, ps := range es.Positions {
			pat := append(at, "positions", j)
			v.Positions = append(v.Positions, programs.EarnPosition{
				Wallet: c.walletRef(ps.Wallet, append(pat, "wallet"), "wallet"),
				Shares: c.units(ps.Shares, m, append(pat, "shares")), Assets: c.units(ps.Assets, m, append(pat, "assets"))})
		}
		c.w.Earn = append(c.w.Earn, v)
		c.w.Name(ids.KindEarn, v.Name, v.Address)
		c.w.EarnByAddr[v.Address] = v
		for j, rs := range es.Requests {
			c.request(v, rs, append(at, "requests", j))
		}
	}
}

// earnNamed returns the earn vault called name, or nil.
func earnNamed(w *programs.Catalog, name string) *programs.Earn {
	return find(w.Earn, func(e *programs.Earn) bool { return e.Name == name })
}

// request compiles one withdrawal request and its account.
func (c *earnCompiler) request(v *programs.Earn, rs scenario.RequestSpec, at []any) {
	if rs.Name == "" || RequestNamed(v, rs.Name) != nil {
		c.failAt(append(at, "name"), "earn vault %q: request names must be unique and non-empty", v.Name)
		return
	}
	r := &programs.Request{Name: rs.Name, Vault: v,
		Address:   c.derive(ids.EarnProgramID, "request", v.Name+"/"+rs.Name, append(at, "name")),
		Wallet:    c.walletRef(rs.Wallet, append(at, "wallet"), "wallet"),
		Requested: c.units(rs.Requested, v.Mint, append(at, "requested")),
		Filled:    c.units(rs.Filled, v.Mint, append(at, "filled")),
		Created:   c.unix(rs.Created, "-1h", append(at, "created")),
	}
	if r.Requested == 0 {
		c.failAt(append(at, "requested"), "request %q: requested must be positive", rs.Name)
	}
	if r.Filled > r.Requested {
		c.failAt(append(at, "filled"), "request %q: filled exceeds requested", rs.Name)
	}
	v.Requests = append(v.Requests, r)
	c.w.Requests[r.Address] = r
	c.gen.Accounts = append(c.gen.Accounts, AccountInit{Key: r.Address, Account: svm.Account{
		Lamports: EarnRequestRent, Owner: ids.EarnProgramID, Data: r.State().Encode()}})
}

// RequestNamed returns the request of v called name, or nil.
func RequestNamed(v *programs.Earn, name string) *programs.Request {
	for _, r := range v.Requests {
		if r.Name == name {
			return r
		}
	}
	return nil
}
