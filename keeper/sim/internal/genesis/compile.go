package genesis

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/keeper-project/keeper/keeper/prices"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/internal/strictyaml"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
	"gopkg.in/yaml.v3"
)

// defaultWalletSOL is the SOL the operator's wallet gets when the scenario does not say.
const defaultWalletSOL = "10"

// accountRent is the lamports the simulator puts in the program accounts it creates.
const accountRent = 2_000_000

// Genesis is the chain state a compiled scenario starts from, applied in order: mints, lamports,
// tokens, accounts.
type Genesis struct {
	Mints    []*programs.Mint
	Lamports []Grant
	Tokens   []Grant
	Accounts []AccountInit
}

// Grant gives lamports (Mint zero) or tokens of Mint to Wallet.
type Grant struct {
	Wallet solana.PublicKey
	Mint   solana.PublicKey
	Amount uint64
}

// AccountInit is an account created at genesis.
type AccountInit struct {
	Key     solana.PublicKey
	Account svm.Account
}

// Event is a compiled scenario event.
type Event struct {
	At    time.Duration
	Desc  string
	Apply func(s Target) error
	// Setup, when set, runs once the simulator is built, to schedule what the chain itself must do at
	// the event's slot.
	Setup func(s Target)
}

// Target is the simulator as scenario events act on it.
type Target interface {
	// Catalog returns the market's catalogue.
	Catalog() *programs.Catalog
	// Chain returns the chain.
	Chain() *chainsim.Chain
	// Clock returns the simulator's clock.
	Clock() chainsim.Clock
	// Start returns the simulator's start, the time scenario offsets count from.
	Start() time.Time
	// FillRequest fills a queued earn withdrawal by amount.
	FillRequest(r *programs.Request, amount uint64) error
	// UpdateStrategyAccount changes a strategy's account with f.
	UpdateStrategyAccount(strat *programs.Strategy, f func(*state.Strategy)) error
	// EarnFees raises a position's pool fee growth as swaps paying fee0 and fee1 would.
	EarnFees(pos *programs.Position, when, fee0, fee1 uint64) error
	// SwapPool moves a pool, as a swap paying fee0 and fee1 (to tick and sqrt when move) would.
	SwapPool(pool *programs.Pool, when, fee0, fee1 uint64, move bool, tick int32, sqrt clmm.U128) error
}

// compiler turns a Scenario into a world, its genesis and its events, collecting every problem with
// its position in the scenario file.
type compiler struct {
	file  string
	root  *yaml.Node // nil for a scenario built in code
	sc    *scenario.Scenario
	start time.Time
	w     *programs.Catalog
	gen   Genesis
	evs   []Event
	errs  strictyaml.Errors

	poolStates map[*programs.Pool]clmm.Pool          // initial pool accounts
	posStates  map[*programs.Position]clmm.Position  // initial position accounts
	books      map[*programs.Pool]*programs.TickBook // initial tick arrays
	evTime     time.Time                             // the scheduled time of the event being compiled
}

// Compiled is the result of compiling a scenario.
type Compiled struct {
	World   *programs.Catalog
	Genesis Genesis
	Events  []Event
}

// Compile compiles sc for wallet, with times relative to start.
func Compile(sc *scenario.Scenario, wallet solana.PublicKey, start time.Time) (*Compiled, error) {
	file, root := sc.Source()
	c := &compiler{file: file, root: root, sc: sc, start: start, w: programs.NewCatalog(wallet),
		poolStates: map[*programs.Pool]clmm.Pool{}, posStates: map[*programs.Position]clmm.Position{}, books: map[*programs.Pool]*programs.TickBook{}}
	steps := []func(){c.mints, c.walletsAndFunding, c.pools, c.positions, c.clmmAccounts, c.strategies, c.vaults,
		c.loans, c.loops, c.earn, c.events, c.market, c.token2022Held}
	for _, step := range steps {
		step()
	}
	if err := c.errs.Err(); err != nil {
		return nil, err
	}
	return &Compiled{World: c.w, Genesis: c.gen, Events: c.evs}, nil
}

// node returns the YAML node at path, or nil for a scenario built in code.
func (c *compiler) node(path ...any) *yaml.Node {
	if c.root == nil {
		return nil
	}
	return strictyaml.Find(c.root, path...)
}

// failAt records a problem at path.
func (c *compiler) failAt(path []any, format string, args ...any) {
	c.errs = append(c.errs, strictyaml.At(c.file, c.node(path...), format, args...))
}

// uniqueName reports whether an entry's name is set and taken by no entry before it, failing at the
// name of the what at path at, the i'th of its list, when it is not.
func (c *compiler) uniqueName(at []any, what string, i int, name string, taken bool) bool {
	if name == "" || taken {
		c.failAt(append(at, "name"), "%s %d: a unique name is required", what, i)
		return false
	}
	return true
}

// find returns the first entry of list that match accepts, or nil.
func find[T any](list []*T, match func(*T) bool) *T {
	for _, v := range list {
		if match(v) {
			return v
		}
	}
	return nil
}

// p builds a path.
func p(elems ...any) []any { return elems }

// unix returns the unix time of an offset from the start, failing at path for a bad offset.
func (c *compiler) unix(s, def string, path []any) int64 {
	if s == "" {
		s = def
	}
	d, err := units.ParseOffset(s)
	if err != nil {
		c.failAt(path, "%v", err)
		return c.start.Unix()
	}
	return c.start.Add(d).Unix()
}

// units parses a whole-token amount of mint m at path.
func (c *compiler) units(s string, m *programs.Mint, path []any) uint64 {
	if m == nil {
		return 0
	}
	v, err := units.ParseUnits(s, m.Decimals)
	if err != nil {
		c.failAt(path, "%v", err)
	}
	return v
}

// mints compiles the mints and their prices.
func (c *compiler) mints() {
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
func (c *compiler) pythFeed(id string, at []any) *programs.PythFeed {
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

// key parses a base58 address at path.
func (c *compiler) key(s string, path []any) solana.PublicKey {
	k, err := solana.PublicKeyFromBase58(s)
	if err != nil {
		c.failAt(path, "%q is not a base58 address", s)
	}
	return k
}

// mint resolves a mint symbol at path; an empty or unknown symbol is an error naming what it is.
func (c *compiler) mint(sym string, path []any, what string) *programs.Mint {
	if sym == "" {
		c.failAt(path, "%s is required", what)
		return nil
	}
	m, ok := c.w.MintBySym[sym]
	if !ok {
		c.failAt(path, "%s: unknown mint %q (mints: %s)", what, sym, c.mintSymbols())
		return nil
	}
	return m
}

// mintSymbols lists the known symbols for error messages.
func (c *compiler) mintSymbols() string {
	out := ""
	for i, m := range c.w.Mints {
		if i > 0 {
			out += ", "
		}
		out += m.Symbol
	}
	return out
}

// walletsAndFunding compiles the named wallets and the funding of every wallet.
func (c *compiler) walletsAndFunding() {
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
func (c *compiler) fund(wallet solana.PublicKey, f scenario.Funding, at []any, defSOL string) {
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

// WalletPlaceholder stands for the operator's wallet in scenario files.
const WalletPlaceholder = "$wallet"

// walletRef resolves "$wallet", a wallet name or a base58 address at path.
func (c *compiler) walletRef(s string, path []any, what string) solana.PublicKey {
	switch {
	case s == "":
		c.failAt(path, "%s is required", what)
	case s == WalletPlaceholder:
		return c.w.Wallet
	default:
		if k, ok := c.w.Wallets[s]; ok {
			return k
		}
		if k, err := solana.PublicKeyFromBase58(s); err == nil {
			return k
		}
		c.failAt(path, "%s: %q is not %s, a wallet name or a base58 address", what, s, WalletPlaceholder)
	}
	return solana.PublicKey{}
}

// derive returns a program address, recording a failure at path.
func (c *compiler) derive(program solana.PublicKey, kind, name string, path []any) solana.PublicKey {
	k, _, err := ids.PDA(program, kind, name)
	if err != nil {
		c.failAt(path, "%v", err)
	}
	return k
}

// token2022Held refuses a scenario that gives anyone a balance of a Token-2022 mint: the simulated
// chain does not execute Token-2022 instructions, so such a balance could never move.
func (c *compiler) token2022Held() {
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
