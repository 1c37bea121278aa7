package squads

// RentExempt is the rent-exempt minimum of an account of size bytes under
// the default rent (3,480 lamports per byte-year, exempt at two years,
// 128 bytes of account overhead): what an Anchor init charges its payer.
func RentExempt(size int) uint64 { return uint64(128+size) * 3480 * 2 }

// ProposalSize is Proposal::size for a multisig of members members.
func ProposalSize(members int) int { return 8 + 32 + 8 + 1 + 8 + 1 + 3*(4+members*32) }

// ProposeRent is the rent p's creation locks: its vault transaction
// account and its proposal account, for a multisig of up to members
// members.
func ProposeRent(p Propose, members int) uint64 {
	vt := VaultTransaction{Message: p.Message, EphemeralSignerBumps: []byte{}}
	return RentExempt(len(vt.Encode())) + RentExempt(ProposalSize(members))
}
