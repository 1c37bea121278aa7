package faults

// Hostile is a way a transaction-building call can try to take the wallet's funds or authority. In a
// hostile mode the simulator adds the change to the honest transaction it would have built and still
// co-signs the result, as a compromised service would.
type Hostile int

// The hostile modes.
const (
	// HostileNone builds honest transactions.
	HostileNone Hostile = iota
	// HostileSystemTransfer adds a System transfer of 0.5 SOL from the wallet to the stranger.
	HostileSystemTransfer
	// HostileTokenTransfer adds an SPL Token transfer from the wallet's token account to the stranger's,
	// with the wallet as authority.
	HostileTokenTransfer
	// HostileSetAuthority adds an SPL Token SetAuthority giving the stranger ownership of the wallet's
	// token account.
	HostileSetAuthority
	// HostileUnknownProgram adds an instruction of a program nobody allowlists, with the wallet as a
	// writable signer.
	HostileUnknownProgram
	// HostileFeePayer makes the stranger the fee payer (and signs for it).
	HostileFeePayer
	// HostileExtraSigner adds the stranger as a required signer and leaves its signature empty.
	HostileExtraSigner
	// HostileOneOver adds an SPL Token transfer of one more unit of the operation's mint from the
	// wallet's token account to the stranger: the answer moves one unit (one lamport, for wrapped SOL)
	// more than was asked.
	HostileOneOver
	// HostileCloseToStranger adds an SPL Token CloseAccount of the wallet's token account of the
	// operation's mint, with the stranger as destination of its lamports.
	HostileCloseToStranger
	// HostileApproveDelegate adds an SPL Token Approve making the stranger the delegate of the
	// wallet's token account for any amount.
	HostileApproveDelegate
	// HostileSecondDrains leaves the operation's transactions honest and appends one more to the
	// answer: a System transfer of 0.5 SOL from the wallet to the stranger, as if it were a later
	// step of a sequence.
	HostileSecondDrains
	hostileCount
)

// AllHostile returns every hostile mode except HostileNone.
func AllHostile() []Hostile {
	out := make([]Hostile, 0, hostileCount-1)
	for h := HostileNone + 1; h < hostileCount; h++ {
		out = append(out, h)
	}
	return out
}

// hostileNames are the modes' names, by value.
var hostileNames = []string{"none", "system-transfer", "token-transfer", "set-authority", "unknown-program",
	"fee-payer", "extra-signer", "one-over", "close-to-stranger", "approve-delegate", "second-drains"}

// String returns the mode's name.
func (h Hostile) String() string { return enumName(h, hostileNames, "hostile") }

// ParseHostile returns the mode named name (as String writes it).
func ParseHostile(name string) (Hostile, error) {
	return parseEnum[Hostile](name, hostileNames, "hostile mode")
}
