package tokens

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/gagliardetto/solana-go"
)

// Program ids of the token programs and of Metaplex Token Metadata.
var (
	TokenProgramID     = solana.TokenProgramID
	Token2022ProgramID = solana.MustPublicKeyFromBase58("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb")
	MetadataProgramID  = solana.MustPublicKeyFromBase58("metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s")
)

// Layout constants of mint accounts.
const (
	mintLen         = 82  // the base Mint
	decimalsOffset  = 44  // Mint.decimals
	initOffset      = 45  // Mint.is_initialized
	accountTypeAt   = 165 // Token-2022: the AccountType byte after the padding to Account::LEN
	accountTypeMint = 1
	tlvStart        = 166
	extTokenMeta    = 19 // ExtensionType::TokenMetadata
)

// Mint is what a mint account says of its token.
type Mint struct {
	// Decimals scales base units to whole tokens.
	Decimals uint8
	// Token2022 is true for a mint of the Token-2022 program.
	Token2022 bool
	// Symbol and Name come from Token-2022's metadata extension in the mint; empty when it has none.
	Symbol, Name string
}

// DecodeMint reads a mint account owned by owner. It refuses an account of another program, one too
// short to be a mint, and an uninitialized mint.
func DecodeMint(owner solana.PublicKey, data []byte) (Mint, error) {
	var m Mint
	switch owner {
	case TokenProgramID:
	case Token2022ProgramID:
		m.Token2022 = true
	default:
		return m, fmt.Errorf("not a mint: owned by %s, not a token program", owner)
	}
	if len(data) < mintLen {
		return m, fmt.Errorf("not a mint: %d bytes, want at least %d", len(data), mintLen)
	}
	if data[initOffset] != 1 {
		return m, errors.New("mint is not initialized")
	}
	m.Decimals = data[decimalsOffset]
	if m.Token2022 && len(data) > tlvStart && data[accountTypeAt] == accountTypeMint {
		if v, ok := findExtension(data[tlvStart:], extTokenMeta); ok {
			name, symbol, err := decodeTokenMetadata(v)
			if err != nil {
				return m, fmt.Errorf("token metadata extension: %w", err)
			}
			m.Name, m.Symbol = name, symbol
		}
	}
	return m, nil
}

// findExtension returns the value of the first TLV entry of type typ, stopping at an entry of type
// 0 (uninitialized) or at the end.
func findExtension(tlv []byte, typ uint16) ([]byte, bool) {
	for len(tlv) >= 4 {
		t, n := binary.LittleEndian.Uint16(tlv), int(binary.LittleEndian.Uint16(tlv[2:]))
		if t == 0 || len(tlv) < 4+n {
			return nil, false
		}
		if t == typ {
			return tlv[4 : 4+n], true
		}
		tlv = tlv[4+n:]
	}
	return nil, false
}

// decodeTokenMetadata reads name and symbol from a TokenMetadata value: update authority (32),
// mint (32), then borsh strings.
func decodeTokenMetadata(v []byte) (name, symbol string, err error) {
	if len(v) < 64 {
		return "", "", fmt.Errorf("%d bytes, want at least 64", len(v))
	}
	r := reader{b: v[64:]}
	name, symbol = r.str(), r.str()
	return cleanText(name), cleanText(symbol), r.err
}

// reader reads borsh strings.
type reader struct {
	b   []byte
	err error
}

// maxText bounds a metadata string: Metaplex pads uri to 200 bytes, the longest of the three.
const maxText = 1024

// str reads one u32-length string.
func (r *reader) str() string {
	if r.err != nil {
		return ""
	}
	if len(r.b) < 4 {
		r.err = errors.New("truncated string length")
		return ""
	}
	n := binary.LittleEndian.Uint32(r.b)
	if n > maxText || int(n) > len(r.b)-4 {
		r.err = fmt.Errorf("string of %d bytes does not fit", n)
		return ""
	}
	s := string(r.b[4 : 4+n])
	r.b = r.b[4+n:]
	return s
}

// cleanText trims the NUL padding and spaces of a metadata string and drops one that is not
// printable text, so it can never carry control characters into a log line.
func cleanText(s string) string {
	s = strings.TrimSpace(strings.TrimRight(s, "\x00"))
	if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\uFFFD' }) {
		return ""
	}
	return s
}
