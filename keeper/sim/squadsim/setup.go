package squadsim

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/squads"
)

// Config is a multisig to create in the simulator.
type Config struct {
	// CreateKey seeds the multisig's address.
	CreateKey solana.PublicKey
	Members   []squads.Member
	Threshold uint16
	// TimeLock is the seconds between approval and execution.
	TimeLock uint32
}

// Register deploys the program at squads.ProgramID on chain.
func Register(chain *chainsim.Chain) error {
	return chain.Setup.RegisterProgram(squads.ProgramID, Program{})
}

// Create writes the multisig c describes to chain, as multisig_create_v2
// would, after the program's invariant checks (members unique, each with
// known permissions, at least one proposer, executor and voter, threshold
// within the voters). It returns the multisig's address.
func Create(chain *chainsim.Chain, c Config) (solana.PublicKey, error) {
	members := slices.Clone(c.Members)
	slices.SortFunc(members, func(a, b squads.Member) int { return bytes.Compare(a.Key[:], b.Key[:]) })
	key, bump := squads.MultisigPDA(c.CreateKey)
	ms := &squads.Multisig{CreateKey: c.CreateKey, Threshold: c.Threshold, TimeLock: c.TimeLock, Bump: bump, Members: members}
	if err := invariant(ms); err != nil {
		return key, err
	}
	data := ms.Encode()
	chain.State.SetAccount(key, svm.Account{Lamports: squads.RentExempt(len(data)), Owner: squads.ProgramID, Data: data})
	return key, nil
}

// Configure changes the members, threshold or time lock of multisig key
// (a zero threshold keeps it; nil members keep them), as an executed
// config transaction does: the change makes every transaction created
// before it stale.
func Configure(chain *chainsim.Chain, key solana.PublicKey, members []squads.Member, threshold uint16, timeLock uint32) error {
	return chain.State.UpdateAccount(key, func(a svm.Account, exists bool) (svm.Account, error) {
		ms, err := squads.DecodeMultisig(a.Data)
		if !exists || err != nil {
			return a, fmt.Errorf("squadsim: %s is not a multisig: %v", key, err)
		}
		if members != nil {
			ms.Members = slices.Clone(members)
			slices.SortFunc(ms.Members, func(a, b squads.Member) int { return bytes.Compare(a.Key[:], b.Key[:]) })
		}
		if threshold > 0 {
			ms.Threshold = threshold
		}
		ms.TimeLock = timeLock
		ms.StaleTransactionIndex = ms.TransactionIndex
		if err := invariant(ms); err != nil {
			return a, err
		}
		a.Data = ms.Encode()
		return a, nil
	})
}

// invariant is Multisig::invariant.
func invariant(ms *squads.Multisig) error {
	var proposers, executors int
	for i, m := range ms.Members {
		if i > 0 && ms.Members[i-1].Key == m.Key {
			return fmt.Errorf("squadsim: member %s listed twice", m.Key)
		}
		if m.Permissions >= 8 {
			return fmt.Errorf("squadsim: member %s has unknown permissions %d", m.Key, m.Permissions)
		}
		if m.Permissions.Has(squads.Initiate) {
			proposers++
		}
		if m.Permissions.Has(squads.Execute) {
			executors++
		}
	}
	switch {
	case proposers == 0 || executors == 0 || ms.Voters() == 0:
		return fmt.Errorf("squadsim: a multisig needs a proposer, an executor and a voter")
	case ms.Threshold == 0 || int(ms.Threshold) > ms.Voters():
		return fmt.Errorf("squadsim: threshold %d is not within 1..%d voters", ms.Threshold, ms.Voters())
	case ms.TimeLock > 3*30*24*60*60:
		return fmt.Errorf("squadsim: time lock %ds exceeds three months", ms.TimeLock)
	}
	return nil
}
