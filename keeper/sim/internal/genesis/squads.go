package genesis

import (
	"slices"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/squadsim"
	"github.com/keeper-project/keeper/keeper/squads"
)

// voterLamports is what each voting member gets to pay for its votes.
const voterLamports = 1_000_000_000

// squadsCompiler compiles the Squads multisigs.
type squadsCompiler struct{ *compiler }

// multisigs compiles the multisigs: their members (the operator's wallet
// and the voters, whose keys derive from the names), the voters' SOL, and
// the configs deploy creates on chain. The program's own invariants
// (threshold within the voters, a proposer and an executor) are checked
// by squadsim.Create when the simulator starts.
func (c *squadsCompiler) multisigs() {
	for i, ms := range c.sc.Multisigs {
		at := p("multisigs", i)
		_, wallet := c.w.Wallets[ms.Name]
		taken := wallet || ms.Name == WalletPlaceholder || multisigNamed(c.w, ms.Name) != nil
		if !c.uniqueName(at, "multisig", i, ms.Name, taken) {
			continue
		}
		if ms.Threshold < 1 || ms.Threshold > len(ms.Voters) {
			c.failAt(append(at, "threshold"), "threshold %d: want 1 to the %d voters", ms.Threshold, len(ms.Voters))
		}
		if ms.TimeLock < 0 {
			c.failAt(append(at, "time_lock"), "time_lock %d: want seconds ≥ 0", ms.TimeLock)
		}
		create := ids.DerivedKey("multisig", ms.Name)
		addr, _ := squads.MultisigPDA(create)
		vault, _ := squads.VaultPDA(addr, 0)
		info := &programs.Multisig{Name: ms.Name, Address: addr, Vault: vault}
		cfg := squadsim.Config{CreateKey: create, Threshold: uint16(max(ms.Threshold, 0)), TimeLock: uint32(max(ms.TimeLock, 0))}
		if perm := c.permissions(ms.Keeper, append(at, "keeper")); perm != 0 {
			cfg.Members = append(cfg.Members, squads.Member{Key: c.w.Wallet, Permissions: perm})
		}
		for j, name := range ms.Voters {
			if name == "" || slices.Index(ms.Voters, name) < j {
				c.failAt(append(at, "voters", j), "voter %d: a unique name is required", j)
				continue
			}
			key := solana.PrivateKey(ids.MemberKey(ms.Name, name))
			info.Voters = append(info.Voters, programs.Voter{Name: name, Key: key})
			cfg.Members = append(cfg.Members, squads.Member{Key: key.PublicKey(), Permissions: squads.Vote})
			c.gen.Lamports = append(c.gen.Lamports, Grant{Wallet: key.PublicKey(), Amount: voterLamports})
		}
		c.w.Multisigs = append(c.w.Multisigs, info)
		c.w.Name(ids.KindMultisig, ms.Name, addr)
		c.gen.Multisigs = append(c.gen.Multisigs, cfg)
	}
}

// permissions parses a keeper permission list.
func (c *squadsCompiler) permissions(names []string, at []any) squads.Permission {
	var perm squads.Permission
	for j, n := range names {
		p := permissionNamed(n)
		if p == 0 {
			c.failAt(append(at, j), "permission %q: want initiate, vote or execute", n)
		}
		perm |= p
	}
	return perm
}

// permissionNamed is the permission a multisig's keeper list names n; 0
// for an unknown name.
func permissionNamed(n string) squads.Permission {
	for _, p := range []squads.Permission{squads.Initiate, squads.Vote, squads.Execute} {
		if p.String() == n {
			return p
		}
	}
	return 0
}

// multisigNamed returns the scenario's multisig named name, or nil.
func multisigNamed(w *programs.Catalog, name string) *programs.Multisig {
	return find(w.Multisigs, func(m *programs.Multisig) bool { return m.Name == name })
}
