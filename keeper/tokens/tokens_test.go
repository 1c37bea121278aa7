package tokens

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// mintData returns an initialized base mint of decimals.
func mintData(decimals uint8) []byte {
	d := make([]byte, mintLen)
	d[decimalsOffset], d[initOffset] = decimals, 1
	return d
}

// str appends s to b as a borsh string: u32 length, then the bytes.
func str(b []byte, s string) []byte {
	return append(binary.LittleEndian.AppendUint32(b, uint32(len(s))), s...)
}

// tlv appends one type-length-value entry.
func tlv(b []byte, typ uint16, v []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, typ)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(v)))
	return append(b, v...)
}

// token2022Data returns a Token-2022 mint with a metadata pointer to itself and the TokenMetadata
// extension, laid out as token-2022's extension/mod.rs describes.
func token2022Data(mint solana.PublicKey, decimals uint8, name, symbol string) []byte {
	d := append(mintData(decimals), make([]byte, accountTypeAt-mintLen)...)
	d = append(d, accountTypeMint)
	ptr := append(make([]byte, 32), mint[:]...)
	d = tlv(d, 18, ptr) // MetadataPointer
	meta := append(make([]byte, 32), mint[:]...)
	meta = str(str(str(meta, name), symbol), "https://example.com/t.json")
	meta = binary.LittleEndian.AppendUint32(meta, 0) // no additional metadata
	return tlv(d, extTokenMeta, meta)
}

// metaplexData returns a MetadataV1 account of mint with Metaplex's padding (name 32, symbol 10,
// uri 200 bytes).
func metaplexData(mint solana.PublicKey, name, symbol string) []byte {
	pad := func(s string, n int) string { return s + strings.Repeat("\x00", n-len(s)) }
	d := append([]byte{metadataV1}, make([]byte, 32)...)
	d = append(d, mint[:]...)
	return str(str(str(d, pad(name, 32)), pad(symbol, 10)), pad("https://example.com", 200))
}

func TestDecodeMint(t *testing.T) {
	mint := solana.NewWallet().PublicKey()
	m, err := DecodeMint(TokenProgramID, mintData(6))
	if err != nil || m.Decimals != 6 || m.Token2022 || m.Symbol != "" {
		t.Errorf("SPL mint: %+v, %v", m, err)
	}
	m, err = DecodeMint(Token2022ProgramID, token2022Data(mint, 9, "Jito", "JTO"))
	if err != nil || m.Decimals != 9 || !m.Token2022 || m.Symbol != "JTO" || m.Name != "Jito" {
		t.Errorf("Token-2022 mint: %+v, %v", m, err)
	}
	m, err = DecodeMint(Token2022ProgramID, append(mintData(2), make([]byte, 90)...))
	if err != nil || m.Decimals != 2 || m.Symbol != "" {
		t.Errorf("Token-2022 mint without extensions: %+v, %v", m, err)
	}
	cut := token2022Data(mint, 9, "Jito", "JTO")
	if m, err := DecodeMint(Token2022ProgramID, cut[:len(cut)-10]); err != nil || m.Symbol != "" || m.Decimals != 9 {
		t.Errorf("Token-2022 mint with a cut metadata entry: %+v, %v; want its decimals and no symbol", m, err)
	}
	uninit := mintData(6)
	uninit[initOffset] = 0
	for name, c := range map[string]struct {
		owner solana.PublicKey
		data  []byte
	}{
		"system account": {solana.SystemProgramID, mintData(6)},
		"short":          {TokenProgramID, make([]byte, 40)},
		"uninitialized":  {TokenProgramID, uninit},
	} {
		if _, err := DecodeMint(c.owner, c.data); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestDecodeMetadata(t *testing.T) {
	mint := solana.NewWallet().PublicKey()
	name, sym, err := DecodeMetadata(MetadataProgramID, mint, metaplexData(mint, "USD Coin", "USDC"))
	if err != nil || name != "USD Coin" || sym != "USDC" {
		t.Errorf("padded metadata: %q %q %v", name, sym, err)
	}
	unpadded := append(append([]byte{metadataV1}, make([]byte, 32)...), mint[:]...)
	unpadded = str(str(str(unpadded, "Bonk"), "BONK"), "u")
	if _, sym, err := DecodeMetadata(MetadataProgramID, mint, unpadded); err != nil || sym != "BONK" {
		t.Errorf("unpadded (puffed-out legacy) metadata: %q %v", sym, err)
	}
	other := solana.NewWallet().PublicKey()
	if _, _, err := DecodeMetadata(MetadataProgramID, other, metaplexData(mint, "USD Coin", "USDC")); err == nil {
		t.Error("metadata of another mint accepted")
	}
	if _, _, err := DecodeMetadata(solana.SystemProgramID, mint, metaplexData(mint, "USD Coin", "USDC")); err == nil {
		t.Error("metadata owned by another program accepted")
	}
	evil := append(append([]byte{metadataV1}, make([]byte, 32)...), mint[:]...)
	evil = str(str(evil, "x"), "US\x1b[31mDC")
	if _, sym, _ := DecodeMetadata(MetadataProgramID, mint, evil); sym != "" {
		t.Errorf("symbol with a control character kept: %q", sym)
	}
	huge := append(append([]byte{metadataV1}, make([]byte, 32)...), mint[:]...)
	huge = binary.LittleEndian.AppendUint32(huge, 1<<31)
	if _, _, err := DecodeMetadata(MetadataProgramID, mint, huge); err == nil {
		t.Error("a string longer than the account accepted")
	}
}

func TestMetadataAddress(t *testing.T) {
	// USDC's Metaplex metadata account on mainnet.
	usdc := solana.MustPublicKeyFromBase58("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")
	got, err := MetadataAddress(usdc)
	if err != nil || got.String() != "5x38Kp4hvdomTCnCrAny4UtMUt5rQBdB6px2K1Ui45Wq" {
		t.Errorf("MetadataAddress(USDC) = %s, %v", got, err)
	}
}

// fakeChain serves accounts from a map, counting requests.
type fakeChain struct {
	accounts map[solana.PublicKey]*Account
	calls    int
	fail     error
}

func (f *fakeChain) fetch(_ context.Context, keys []solana.PublicKey) ([]*Account, error) {
	f.calls++
	if f.fail != nil {
		return nil, f.fail
	}
	out := make([]*Account, len(keys))
	for i, k := range keys {
		out[i] = f.accounts[k]
	}
	return out, nil
}

func TestBook(t *testing.T) {
	usdc, jto, plain, wallet := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	md, _ := MetadataAddress(usdc)
	f := &fakeChain{accounts: map[solana.PublicKey]*Account{
		usdc:   {Owner: TokenProgramID, Data: mintData(6)},
		md:     {Owner: MetadataProgramID, Data: metaplexData(usdc, "USD Coin", "USDC")},
		jto:    {Owner: Token2022ProgramID, Data: token2022Data(jto, 9, "Jito", "JTO")},
		plain:  {Owner: TokenProgramID, Data: mintData(0)},
		wallet: {Owner: solana.SystemProgramID},
	}}
	b := NewBook(f.fetch)
	if err := b.Learn(t.Context(), []solana.PublicKey{usdc, jto, plain, usdc}); err != nil {
		t.Fatal(err)
	}
	for mint, want := range map[solana.PublicKey]Token{usdc: {"USDC", 6}, jto: {"JTO", 9}, plain: {"", 0}} {
		if got, ok := b.Lookup(mint); !ok || got != want {
			t.Errorf("Lookup(%s) = %+v, %v; want %+v", mint, got, ok, want)
		}
	}
	if f.calls != 1 {
		t.Errorf("%d reads for three mints, want one", f.calls)
	}
	if err := b.Learn(t.Context(), []solana.PublicKey{usdc, jto}); err != nil || f.calls != 1 {
		t.Errorf("learning known mints again: %v, %d reads", err, f.calls)
	}
	if err := b.Learn(t.Context(), []solana.PublicKey{wallet}); err == nil || !strings.Contains(err.Error(), "not a mint") {
		t.Errorf("a wallet learned as a mint: %v", err)
	}
	if err := b.Learn(t.Context(), []solana.PublicKey{wallet}); err == nil || f.calls != 2 {
		t.Errorf("a known non-mint read again (%d reads) or forgotten (%v)", f.calls, err)
	}
	f.fail = errors.New("node down")
	other := solana.NewWallet().PublicKey()
	if err := b.Learn(t.Context(), []solana.PublicKey{other}); err == nil {
		t.Error("a failed read reported no error")
	}
	f.fail = nil
	f.accounts[other] = &Account{Owner: TokenProgramID, Data: mintData(3)}
	if err := b.Learn(t.Context(), []solana.PublicKey{other}); err != nil {
		t.Errorf("a mint whose read failed was not tried again: %v", err)
	}
}
