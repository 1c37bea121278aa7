package squads

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/gagliardetto/solana-go"
)

// Member is a multisig member and its permissions mask.
type Member struct {
	Key         solana.PublicKey
	Permissions Permission
}

// Multisig is the Multisig account (state/multisig.rs). Members are kept
// sorted by key, as the program keeps them (it binary-searches them).
type Multisig struct {
	CreateKey       solana.PublicKey
	ConfigAuthority solana.PublicKey
	Threshold       uint16
	// TimeLock is the seconds between approval and execution.
	TimeLock         uint32
	TransactionIndex uint64
	// StaleTransactionIndex: transactions at or below it can no longer be
	// voted on (a config change made them stale).
	StaleTransactionIndex uint64
	RentCollector         *solana.PublicKey
	Bump                  uint8
	Members               []Member
}

// Member returns key's permissions, and whether key is a member.
func (m *Multisig) Member(key solana.PublicKey) (Permission, bool) {
	i, ok := slices.BinarySearchFunc(m.Members, key, func(a Member, k solana.PublicKey) int { return bytes.Compare(a.Key[:], k[:]) })
	if !ok {
		return 0, false
	}
	return m.Members[i].Permissions, true
}

// Voters counts the members with Vote permission.
func (m *Multisig) Voters() int {
	n := 0
	for _, mb := range m.Members {
		if mb.Permissions.Has(Vote) {
			n++
		}
	}
	return n
}

// Cutoff is the number of rejections that rejects a proposal: voters −
// threshold + 1.
func (m *Multisig) Cutoff() int { return m.Voters() - int(m.Threshold) + 1 }

// Encode writes the account with its discriminator, the 32 bytes of a None
// rent collector reserved as Multisig::size does.
func (m *Multisig) Encode() []byte {
	var w writer
	w.disc(DiscMultisig)
	w.key(m.CreateKey)
	w.key(m.ConfigAuthority)
	w.u16(m.Threshold)
	w.u32(m.TimeLock)
	w.u64(m.TransactionIndex)
	w.u64(m.StaleTransactionIndex)
	if m.RentCollector != nil {
		w.u8(1)
		w.key(*m.RentCollector)
	} else {
		w.u8(0)
	}
	w.u8(m.Bump)
	w.u32(uint32(len(m.Members)))
	for _, mb := range m.Members {
		w.key(mb.Key)
		w.u8(uint8(mb.Permissions))
	}
	if m.RentCollector == nil {
		w.raw(make([]byte, 32))
	}
	return w.b
}

// DecodeMultisig reads a Multisig account.
func DecodeMultisig(b []byte) (*Multisig, error) {
	r := &reader{b: b}
	r.disc(DiscMultisig, "multisig")
	m := &Multisig{CreateKey: r.key(), ConfigAuthority: r.key(), Threshold: r.u16(), TimeLock: r.u32(),
		TransactionIndex: r.u64(), StaleTransactionIndex: r.u64()}
	switch r.u8() {
	case 0:
	case 1:
		k := r.key()
		m.RentCollector = &k
	default:
		r.fail("rent collector Option tag")
	}
	m.Bump = r.u8()
	n := r.u32()
	if r.err == nil && int(n)*33 > len(b)-r.off {
		r.fail("more members than the account holds")
	}
	for i := uint32(0); i < n && r.err == nil; i++ {
		m.Members = append(m.Members, Member{Key: r.key(), Permissions: Permission(r.u8())})
	}
	if r.err != nil {
		return nil, fmt.Errorf("squads: multisig account: %w", r.err)
	}
	return m, nil
}

// Status is a proposal's status (ProposalStatus); the numbers are its Borsh
// variant indexes.
type Status uint8

// The proposal statuses.
const (
	StatusDraft     Status = 0
	StatusActive    Status = 1
	StatusRejected  Status = 2
	StatusApproved  Status = 3
	StatusExecuting Status = 4 // deprecated by the program; carries no timestamp
	StatusExecuted  Status = 5
	StatusCancelled Status = 6
)

// String is the status's name in lower case.
func (s Status) String() string {
	names := []string{"draft", "active", "rejected", "approved", "executing", "executed", "cancelled"}
	if int(s) < len(names) {
		return names[s]
	}
	return fmt.Sprintf("status(%d)", uint8(s))
}

// Proposal is the Proposal account (state/proposal.rs).
type Proposal struct {
	Multisig         solana.PublicKey
	TransactionIndex uint64
	Status           Status
	// Timestamp is the unix time the status was set (none for Executing).
	Timestamp int64
	Bump      uint8
	Approved  []solana.PublicKey
	Rejected  []solana.PublicKey
	Cancelled []solana.PublicKey
}

// Since is when the proposal took its status.
func (p *Proposal) Since() time.Time { return time.Unix(p.Timestamp, 0).UTC() }

// Encode writes the account with its discriminator, padded to size (the
// space the program allocates: Proposal::size of the members count).
func (p *Proposal) Encode(members int) []byte {
	var w writer
	w.disc(DiscProposal)
	w.key(p.Multisig)
	w.u64(p.TransactionIndex)
	w.u8(uint8(p.Status))
	if p.Status != StatusExecuting {
		w.i64(p.Timestamp)
	}
	w.u8(p.Bump)
	w.keysU32(p.Approved)
	w.keysU32(p.Rejected)
	w.keysU32(p.Cancelled)
	if size := ProposalSize(members); len(w.b) < size {
		w.raw(make([]byte, size-len(w.b)))
	}
	return w.b
}

// DecodeProposal reads a Proposal account.
func DecodeProposal(b []byte) (*Proposal, error) {
	r := &reader{b: b}
	r.disc(DiscProposal, "proposal")
	p := &Proposal{Multisig: r.key(), TransactionIndex: r.u64(), Status: Status(r.u8())}
	if p.Status > StatusCancelled {
		r.fail("unknown proposal status")
	}
	if p.Status != StatusExecuting {
		p.Timestamp = r.i64()
	}
	p.Bump = r.u8()
	p.Approved = r.keys(int(r.u32()))
	p.Rejected = r.keys(int(r.u32()))
	p.Cancelled = r.keys(int(r.u32()))
	if r.err != nil {
		return nil, fmt.Errorf("squads: proposal account: %w", r.err)
	}
	return p, nil
}

// VaultTransaction is the VaultTransaction account
// (state/vault_transaction.rs).
type VaultTransaction struct {
	Multisig             solana.PublicKey
	Creator              solana.PublicKey
	Index                uint64
	Bump                 uint8
	VaultIndex           uint8
	VaultBump            uint8
	EphemeralSignerBumps []uint8
	Message              *Message
}

// Encode writes the account with its discriminator.
func (t *VaultTransaction) Encode() []byte {
	var w writer
	w.disc(DiscVaultTransaction)
	w.key(t.Multisig)
	w.key(t.Creator)
	w.u64(t.Index)
	w.u8(t.Bump)
	w.u8(t.VaultIndex)
	w.u8(t.VaultBump)
	w.bytesU32(t.EphemeralSignerBumps)
	t.Message.encodeStored(&w)
	return w.b
}

// DecodeVaultTransaction reads a VaultTransaction account.
func DecodeVaultTransaction(b []byte) (*VaultTransaction, error) {
	r := &reader{b: b}
	r.disc(DiscVaultTransaction, "vault transaction")
	t := &VaultTransaction{Multisig: r.key(), Creator: r.key(), Index: r.u64(), Bump: r.u8(), VaultIndex: r.u8(), VaultBump: r.u8()}
	t.EphemeralSignerBumps = r.bytesU32()
	t.Message = readStored(r)
	if r.err != nil {
		return nil, fmt.Errorf("squads: vault transaction account: %w", r.err)
	}
	return t, nil
}
