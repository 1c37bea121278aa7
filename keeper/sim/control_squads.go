package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/squadsim"
	"github.com/keeper-project/keeper/keeper/squads"
)

var (
	errUnknownMultisig = errors.New("sim control: squads: unknown multisig or voter")
	errBadVote         = errors.New("sim control: squads: vote")
	errVoteRefused     = errors.New("sim control: squads: the program refused the vote")
)

// SquadsVote is the body of POST /_sim/squads/vote: a voting member of a scenario's multisig
// approves or rejects one of its proposals.
type SquadsVote struct {
	// Multisig is the scenario's name of the multisig; Member the name of one of its voters.
	Multisig string `json:"multisig"`
	Member   string `json:"member"`
	// Index is the proposal's transaction index.
	Index uint64 `json:"index"`
	// Vote is "approve" or "reject".
	Vote string `json:"vote"`
}

// SquadsState is the answer of GET /_sim/squads: every multisig of the scenario as the chain holds
// it, by its scenario name.
type SquadsState struct {
	Multisigs map[string]MultisigState `json:"multisigs"`
}

// MultisigState is one multisig and its proposals.
type MultisigState struct {
	Address string `json:"address"`
	// Vault is vault 0's address, the authority the multisig holds.
	Vault     string `json:"vault"`
	Threshold uint16 `json:"threshold"`
	// TransactionIndex is the index of the last vault transaction created; StaleTransactionIndex
	// the last one a config change made stale.
	TransactionIndex      uint64 `json:"transaction_index"`
	StaleTransactionIndex uint64 `json:"stale_transaction_index"`
	// Voters are the voting members the simulator votes as (name → address).
	Voters    map[string]string `json:"voters"`
	Proposals []ProposalState   `json:"proposals"`
}

// ProposalState is one vault transaction and its proposal, by index from 1 to the multisig's
// transaction index.
type ProposalState struct {
	Index uint64 `json:"index"`
	// Creator is the member that created the vault transaction ("" when there is none).
	Creator string `json:"creator,omitempty"`
	// Status is the proposal's status (draft, active, rejected, approved, executing, executed,
	// cancelled), "" when the index has no proposal account.
	Status    string   `json:"status,omitempty"`
	Approved  []string `json:"approved,omitempty"`
	Rejected  []string `json:"rejected,omitempty"`
	Cancelled []string `json:"cancelled,omitempty"`
}

// Vote lands v's vote, signed and paid by the member, as the member's wallet would, and returns
// the proposal's state after it. The program's refusal (a second approval, a proposal no longer
// active, ...) is an error wrapping errVoteRefused.
func (c *Control) Vote(v SquadsVote) (ProposalState, error) {
	ms, voter, err := c.voter(v.Multisig, v.Member)
	if err != nil {
		return ProposalState{}, err
	}
	cast := map[string]func(*chainsim.Chain, solana.PublicKey, uint64, solana.PrivateKey) error{
		"approve": squadsim.Approve, "reject": squadsim.Reject}[v.Vote]
	if cast == nil {
		return ProposalState{}, fmt.Errorf("%w: %q is not approve or reject", errBadVote, v.Vote)
	}
	c.advanceMu.Lock() // a vote lands in the current slot: no clock move meanwhile
	err = cast(c.sim.chain, ms.Address, v.Index, voter.Key)
	c.advanceMu.Unlock()
	if err != nil {
		return ProposalState{}, fmt.Errorf("%w: %s of %s on #%d: %w", errVoteRefused, v.Member, v.Multisig, v.Index, err)
	}
	return c.proposal(ms.Address, v.Index), nil
}

// voter finds the scenario's multisig and voter by name.
func (c *Control) voter(multisig, member string) (*programs.Multisig, programs.Voter, error) {
	for _, ms := range c.sim.w.Multisigs {
		if ms.Name != multisig {
			continue
		}
		for _, v := range ms.Voters {
			if v.Name == member {
				return ms, v, nil
			}
		}
	}
	return nil, programs.Voter{}, fmt.Errorf("%w: %q of %q", errUnknownMultisig, member, multisig)
}

// Squads returns the scenario's multisigs as the chain holds them.
func (c *Control) Squads() (SquadsState, error) {
	out := SquadsState{Multisigs: map[string]MultisigState{}}
	for _, ms := range c.sim.w.Multisigs {
		a, _ := c.sim.chain.State.Account(ms.Address)
		m, err := squads.DecodeMultisig(a.Data)
		if err != nil {
			return out, fmt.Errorf("sim control: squads: multisig %s: %w", ms.Name, err)
		}
		st := MultisigState{Address: ms.Address.String(), Vault: ms.Vault.String(), Threshold: m.Threshold,
			TransactionIndex: m.TransactionIndex, StaleTransactionIndex: m.StaleTransactionIndex, Voters: map[string]string{}}
		for _, v := range ms.Voters {
			st.Voters[v.Name] = v.Key.PublicKey().String()
		}
		for i := uint64(1); i <= m.TransactionIndex; i++ {
			st.Proposals = append(st.Proposals, c.proposal(ms.Address, i))
		}
		out.Multisigs[ms.Name] = st
	}
	return out, nil
}

// proposal reads the vault transaction and proposal at index of multisig.
func (c *Control) proposal(multisig solana.PublicKey, index uint64) ProposalState {
	st := ProposalState{Index: index}
	txKey, _ := squads.TransactionPDA(multisig, index)
	if a, ok := c.sim.chain.State.Account(txKey); ok {
		if vt, err := squads.DecodeVaultTransaction(a.Data); err == nil {
			st.Creator = vt.Creator.String()
		}
	}
	pKey, _ := squads.ProposalPDA(multisig, index)
	if a, ok := c.sim.chain.State.Account(pKey); ok {
		if p, err := squads.DecodeProposal(a.Data); err == nil {
			st.Status = p.Status.String()
			st.Approved, st.Rejected, st.Cancelled = keyStrings(p.Approved), keyStrings(p.Rejected), keyStrings(p.Cancelled)
		}
	}
	return st
}

// keyStrings is ks in base58.
func keyStrings(ks []solana.PublicKey) []string {
	var out []string
	for _, k := range ks {
		out = append(out, k.String())
	}
	return out
}

// serveVote handles POST /_sim/squads/vote.
func (c *Control) serveVote(w http.ResponseWriter, r *http.Request) {
	var v SquadsVote
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<12))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		writeControlError(w, http.StatusBadRequest, fmt.Errorf("%w: bad body: %w", errBadVote, err))
		return
	}
	st, err := c.Vote(v)
	switch {
	case errors.Is(err, errUnknownMultisig):
		writeControlError(w, http.StatusNotFound, err)
	case errors.Is(err, errBadVote):
		writeControlError(w, http.StatusBadRequest, err)
	case errors.Is(err, errVoteRefused):
		writeControlError(w, http.StatusConflict, err)
	case err != nil:
		writeControlError(w, http.StatusInternalServerError, err)
	default:
		writeControlJSON(w, st)
	}
}

// serveSquads handles GET /_sim/squads.
func (c *Control) serveSquads(w http.ResponseWriter, _ *http.Request) {
	st, err := c.Squads()
	if err != nil {
		writeControlError(w, http.StatusInternalServerError, err)
		return
	}
	writeControlJSON(w, st)
}
