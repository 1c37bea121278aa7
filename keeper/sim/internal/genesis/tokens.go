package genesis

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/prices"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// mints compiles the mints and their prices.
func (c *tokenCompiler) mints() {
	prices := map[solana.PublicKey]float64{}
	for i, ms := range c.sc.Mints {
		at := p("mints", i)
		if ms.Symbol == "" {
			c.failAt(append(at, "symbol"), "mint %d: symbol is required", i)
			continue
		}
		if _, dup := c.w.MintBySym[ms.Symbol]; dup {
			c.failAt(append(at, "symbol"), "mint %q is defined twice", ms.Symbol)
			continue
		}
		if ms.Decimals < 0 || ms.Decimals > 18 {
			c.failAt(append(at, "decimals"), "mint %q: decimals %d outside [0, 18]", ms.Symbol, ms.Decimals)
		}
		if ms.Price < 0 || math.IsNaN(ms.Price) || math.IsInf(ms.Price, 0) {
			c.failAt(append(at, "price"), "mint %q: price must be a non-negative number", ms.Symbol)
		}
		addr := ids.DerivedKey("mint", ms.Symbol)
		if ms.Address != "" {
			addr = c.key(ms.Address, append(at, "address"))
		}
		m := &programs.Mint{Symbol: ms.Symbol, Name: cmp.Or(ms.Name, ms.Symbol), Address: addr,
			Decimals: uint8(max(0, min(ms.Decimals, 18))), YieldAPY: ms.YieldAPY}
		switch ms.Program {
		case "", "token":
		case "token-2022":
			m.Token2022 = true
		default:
			c.failAt(append(at, "program"), "mint %q: program must be token or token-2022, got %q", ms.Symbol, ms.Program)
		}
		if ms.Pyth != "" {
			m.Pyth = c.pythFeed(ms.Pyth, append(at, "pyth"))
		}
		c.w.Mints = append(c.w.Mints, m)
		c.w.MintBySym[m.Symbol] = m
		c.w.MintByAddr[addr] = m
		c.gen.Mints = append(c.gen.Mints, m)
		prices[addr] = ms.Price
	}
	c.w.SetPrices(prices)
}

// pythFeed parses a mint's Pyth feed id at path and derives its sponsored account.
func (c *tokenCompiler) pythFeed(id string, at []any) *programs.PythFeed {
	feed, err := prices.ParseFeedID(id)
	if err != nil {
		c.failAt(at, "pyth: %v", err)
		return nil
	}
	acct, err := prices.FeedAccount(feed, 0)
	if err != nil {
		c.failAt(at, "pyth: %v", err)
		return nil
	}
	return &programs.PythFeed{ID: feed, Account: acct}
}

// walletsAndFunding compiles the named wallets and the funding of every wallet.
func (c *tokenCompiler) walletsAndFunding() {
	c.fund(c.w.Wallet, c.sc.Wallet, p("wallet"), defaultWalletSOL)
	for i, ws := range c.sc.Wallets {
		at := p("wallets", i)
		if ws.Name == "" || ws.Name == WalletPlaceholder {
			c.failAt(append(at, "name"), "wallet %d: a name other than %s is required", i, WalletPlaceholder)
			continue
		}
		if _, dup := c.w.Wallets[ws.Name]; dup {
			c.failAt(append(at, "name"), "wallet %q is defined twice", ws.Name)
			continue
		}
		addr := ids.DerivedKey("wallet", ws.Name)
		if ws.Address != "" {
			addr = c.key(ws.Address, append(at, "address"))
		}
		c.w.Wallets[ws.Name] = addr
		c.fund(addr, ws.Fund, append(at, "fund"), "0")
	}
}

// fund adds the grants of f to wallet.
func (c *tokenCompiler) fund(wallet solana.PublicKey, f scenario.Funding, at []any, defSOL string) {
	sol := f.SOL
	if sol == "" {
		sol = defSOL
	}
	lamports, err := units.ParseUnits(sol, 9)
	if err != nil {
		c.failAt(append(at, "sol"), "%v", err)
	}
	if lamports > 0 {
		c.gen.Lamports = append(c.gen.Lamports, Grant{Wallet: wallet, Amount: lamports})
	}
	for _, sym := range slices.Sorted(maps.Keys(f.Tokens)) {
		m := c.mint(sym, append(at, "tokens", sym), "token")
		if amt := c.units(f.Tokens[sym], m, append(at, "tokens", sym)); amt > 0 {
			c.gen.Tokens = append(c.gen.Tokens, Grant{Wallet: wallet, Mint: m.Address, Amount: amt})
		}
	}
}

// token2022Held refuses a scenario that gives anyone a balance of a Token-2022 mint: the simulated
// chain does not execute Token-2022 instructions, so such a balance could never move.
func (c *tokenCompiler) token2022Held() {
	for i, ms := range c.sc.Mints {
		m := c.w.MintBySym[ms.Symbol]
		if m == nil || !m.Token2022 {
			continue
		}
		for _, g := range c.gen.Tokens {
			if g.Mint == m.Address {
				c.failAt(p("mints", i, "program"), "mint %q is a Token-2022 mint, which the simulated chain can show but not move; %s cannot hold it", ms.Symbol, g.Wallet)
				break
			}
		}
	}
}
