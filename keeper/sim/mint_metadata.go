package sim

import (
	"encoding/binary"
	"strings"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/tokens"
)

// createMint creates a scenario mint on chain as the token programs lay it out: an SPL Token mint with a
// Metaplex Token Metadata account at its PDA, or a Token-2022 mint carrying the metadata pointer and
// metadata extensions itself.
func createMint(chain *chainsim.Chain, m *programs.Mint) error {
	if m.Token2022 {
		chain.State.SetAccount(m.Address, svm.Account{Lamports: svm.MintRent, Owner: tokens.Token2022ProgramID,
			Data: token2022Mint(m)})
		return nil
	}
	if err := chain.Setup.CreateMint(m.Address, m.Decimals); err != nil {
		return err
	}
	md, err := tokens.MetadataAddress(m.Address)
	if err != nil {
		return err
	}
	chain.State.SetAccount(md, svm.Account{Lamports: svm.MintRent, Owner: tokens.MetadataProgramID,
		Data: metaplexMetadata(m)})
	return nil
}

// metaplexMetadata encodes a MetadataV1 account (key 4, update authority, mint, then name, symbol
// and uri as u32-length strings) padded with NUL bytes to 32, 10 and 200 bytes, as Metaplex's
// create path pads them, followed by a zero royalty and no creators.
func metaplexMetadata(m *programs.Mint) []byte {
	d := append([]byte{4}, make([]byte, 32)...)
	d = append(d, m.Address[:]...)
	d = borshString(d, padNUL(m.Name, 32))
	d = borshString(d, padNUL(m.Symbol, 10))
	d = borshString(d, padNUL("https://keeper.invalid/sim/"+m.Symbol+".json", 200))
	return append(d, 0, 0, 0) // seller_fee_basis_points, creators: None
}

// token2022Mint encodes a Token-2022 mint: the 82-byte base mint, padding to 165 bytes, the account
// type (1, mint), a MetadataPointer extension (type 18) naming the mint itself and a TokenMetadata
// extension (type 19: update authority, mint, name, symbol, uri, no additional metadata).
func token2022Mint(m *programs.Mint) []byte {
	d := make([]byte, 165, 512)
	d[44], d[45] = m.Decimals, 1
	d = append(d, 1)
	d = tlvEntry(d, 18, append(make([]byte, 32), m.Address[:]...))
	meta := append(make([]byte, 32), m.Address[:]...)
	meta = borshString(meta, m.Name)
	meta = borshString(meta, m.Symbol)
	meta = borshString(meta, "https://keeper.invalid/sim/"+m.Symbol+".json")
	meta = binary.LittleEndian.AppendUint32(meta, 0)
	return tlvEntry(d, 19, meta)
}

// borshString appends s as a u32-length string.
func borshString(d []byte, s string) []byte {
	return append(binary.LittleEndian.AppendUint32(d, uint32(len(s))), s...)
}

// padNUL pads s with NUL bytes to n bytes.
func padNUL(s string, n int) string {
	return s + strings.Repeat("\x00", max(0, n-len(s)))
}

// tlvEntry appends a Token-2022 extension entry: u16 type, u16 length, value.
func tlvEntry(d []byte, typ uint16, v []byte) []byte {
	d = binary.LittleEndian.AppendUint16(d, typ)
	d = binary.LittleEndian.AppendUint16(d, uint16(len(v)))
	return append(d, v...)
}
