package genesis

import (
	"time"

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
	"github.com/keeper-project/keeper/keeper/sim/squadsim"
	"gopkg.in/yaml.v3"
)

// defaultWalletSOL is the SOL the operator's wallet gets when the scenario does not say.
const defaultWalletSOL = "10"

// accountRent is the lamports the simulator puts in the program accounts it creates: 1 SOL,
// the rent-exempt minimum of about 143 KB of data, more than the largest state a scenario's
// accounts grow to, so that the runtime's rent rule (chainsim.Options.Rent) never refuses a
// write to them.
const accountRent = 1_000_000_000

// Genesis is the chain state a compiled scenario starts from, applied in order: mints, lamports,
// tokens, accounts, multisigs.
type Genesis struct {
	Mints    []*programs.Mint
	Lamports []Grant
	Tokens   []Grant
	Accounts []AccountInit
	// Multisigs are the Squads multisigs, created after the accounts.
	Multisigs []squadsim.Config
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
	// ChangeAMM changes an AMM pool of the swap program behind the Jupiter API.
	ChangeAMM(ev scenario.AMMEvent) error
}

// compiler is the state a scenario's compilation shares: the scenario, the world, genesis and
// problems built so far. Its methods resolve the references and amounts every part uses, recording
// each problem with its position in the scenario file; the per-part compilers below (tokens, CLMM,
// lending, loans, earn, events) hold it and compile their part.
type compiler struct {
	file  string
	root  *yaml.Node // nil for a scenario built in code
	sc    *scenario.Scenario
	start time.Time
	w     *programs.Catalog
	gen   Genesis
	errs  strictyaml.Errors
}

// tokenCompiler compiles the mints, their Pyth feeds, and the wallets and their funding.
type tokenCompiler struct{ *compiler }

// clmmCompiler compiles the CLMM pools and positions and their initial accounts.
type clmmCompiler struct {
	*compiler
	poolStates map[*programs.Pool]clmm.Pool          // initial pool accounts
	posStates  map[*programs.Position]clmm.Position  // initial position accounts
	books      map[*programs.Pool]*programs.TickBook // initial tick arrays
}

// lendingCompiler compiles the strategies, the lending vaults, the loops and the market's settings.
type lendingCompiler struct{ *compiler }

// loanCompiler compiles the loans: their collateral, ledgers and history.
type loanCompiler struct {
	*compiler
	clmm *clmmCompiler // the positions held as collateral
}

// earnCompiler compiles the earn vaults and their withdrawal requests.
type earnCompiler struct{ *compiler }

// eventCompiler compiles the scenario's events.
type eventCompiler struct {
	*compiler
	evs    []Event
	evTime time.Time // the scheduled time of the event being compiled
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
	c := &compiler{file: file, root: root, sc: sc, start: start, w: programs.NewCatalog(wallet)}
	tokens, lending, earn, sq := &tokenCompiler{c}, &lendingCompiler{c}, &earnCompiler{c}, &squadsCompiler{c}
	cl := &clmmCompiler{compiler: c, poolStates: map[*programs.Pool]clmm.Pool{}, posStates: map[*programs.Position]clmm.Position{},
		books: map[*programs.Pool]*programs.TickBook{}}
	loans, events := &loanCompiler{compiler: c, clmm: cl}, &eventCompiler{compiler: c}
	steps := []func(){tokens.mints, tokens.walletsAndFunding, sq.multisigs, cl.pools, cl.positions, cl.clmmAccounts, lending.strategies,
		lending.vaults, loans.loans, lending.loops, earn.earn, events.events, lending.market, tokens.token2022Held}
	for _, step := range steps {
		step()
	}
	if err := c.errs.Err(); err != nil {
		return nil, err
	}
	return &Compiled{World: c.w, Genesis: c.gen, Events: events.evs}, nil
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

// WalletPlaceholder stands for the operator's wallet in scenario files.
const WalletPlaceholder = "$wallet"

// walletRef resolves "$wallet", a wallet name, a multisig name (its vault 0) or a base58 address
// at path.
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
		if ms := multisigNamed(c.w, s); ms != nil {
			return ms.Vault
		}
		if k, err := solana.PublicKeyFromBase58(s); err == nil {
			return k
		}
		c.failAt(path, "%s: %q is not %s, a wallet or multisig name or a base58 address", what, s, WalletPlaceholder)
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

// assetRef resolves a collateral asset (a mint symbol or a pool name) to its asset identifier.
func (c *compiler) assetRef(s string, path []any, what string) string {
	if m, ok := c.w.MintBySym[s]; ok {
		return m.Address.String()
	}
	if pl := poolNamed(c.w, s); pl != nil {
		return pl.Address.String()
	}
	c.failAt(path, "%s: %q is neither a mint symbol nor a pool name", what, s)
	return ""
}

// putJSONAccount adds a market-program account holding v (a *loanState or *strategyState).
func (c *compiler) putJSONAccount(key solana.PublicKey, v any, at []any) {
	var data []byte
	var err error
	switch s := v.(type) {
	case *state.Loan:
		data, err = state.EncodeLoan(s)
	case *state.Strategy:
		data, err = state.EncodeStrategy(s)
	}
	if err != nil {
		c.failAt(at, "encode account: %v", err)
		return
	}
	c.gen.Accounts = append(c.gen.Accounts, AccountInit{Key: key, Account: svm.Account{
		Lamports: accountRent, Owner: ids.MarketProgramID, Data: data}})
}
