package tokens

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/gagliardetto/solana-go"
)

// Account is an account as the chain returns it; nil in a Fetch result means it does not exist.
type Account struct {
	Owner solana.PublicKey
	Data  []byte
}

// Fetch reads accounts in one request, in the order of keys.
type Fetch func(ctx context.Context, keys []solana.PublicKey) ([]*Account, error)

// Token is what keeper knows of a mint.
type Token struct {
	// Symbol is the metadata's symbol; empty when the token has no metadata.
	Symbol string
	// Decimals scales base units to whole tokens.
	Decimals uint8
}

// maxKeys is the most accounts one getMultipleAccounts may ask for.
const maxKeys = 100

// Book caches what the chain says of mints for the life of the process. It is safe for concurrent
// use.
type Book struct {
	fetch Fetch

	mu    sync.Mutex
	known map[solana.PublicKey]Token // guarded by mu
	bad   map[solana.PublicKey]error // guarded by mu; mints that are not mints
}

// NewBook returns an empty book reading through fetch.
func NewBook(fetch Fetch) *Book {
	return &Book{fetch: fetch, known: map[solana.PublicKey]Token{}, bad: map[solana.PublicKey]error{}}
}

// Lookup returns what the book knows of mint.
func (b *Book) Lookup(mint solana.PublicKey) (Token, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.known[mint]
	return t, ok
}

// Learn reads the mints the book does not know yet, with their metadata, in as few requests as the
// RPC allows (each mint with its Metaplex metadata account). A mint account that is missing or is
// not a mint is remembered as such and not read again; it is reported in the error along with a
// failed read, which leaves the mints of that read to be tried again later.
func (b *Book) Learn(ctx context.Context, mints []solana.PublicKey) error {
	todo := b.unknown(mints)
	var errs []error
	for chunk := range slices.Chunk(todo, maxKeys/2) {
		if err := b.learn(ctx, chunk); err != nil {
			errs = append(errs, err)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range mints {
		if err := b.bad[m]; err != nil {
			errs = append(errs, fmt.Errorf("mint %s: %w", m, err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("token metadata: %w", errs[0])
	}
	return nil
}

// unknown returns the distinct mints neither known nor known to be bad.
func (b *Book) unknown(mints []solana.PublicKey) []solana.PublicKey {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []solana.PublicKey
	for _, m := range mints {
		_, ok := b.known[m]
		if !ok && b.bad[m] == nil && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// learn reads one chunk of mints and their metadata accounts.
func (b *Book) learn(ctx context.Context, mints []solana.PublicKey) error {
	keys := make([]solana.PublicKey, 0, 2*len(mints))
	keys = append(keys, mints...)
	for _, m := range mints {
		md, err := MetadataAddress(m)
		if err != nil {
			return fmt.Errorf("metadata address of %s: %w", m, err)
		}
		keys = append(keys, md)
	}
	accts, err := b.fetch(ctx, keys)
	if err != nil {
		return fmt.Errorf("reading %d mints: %w", len(mints), err)
	}
	if len(accts) != len(keys) {
		return fmt.Errorf("reading %d mints: %d accounts answered for %d keys", len(mints), len(accts), len(keys))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, m := range mints {
		t, err := tokenOf(m, accts[i], accts[len(mints)+i])
		if err != nil {
			b.bad[m] = err
			continue
		}
		b.known[m] = t
	}
	return nil
}

// tokenOf decodes a mint account and, when the mint carries no metadata itself, its Metaplex
// metadata account (either may be nil: not found). Unreadable metadata leaves the symbol empty.
func tokenOf(mint solana.PublicKey, acct, meta *Account) (Token, error) {
	if acct == nil {
		return Token{}, fmt.Errorf("no account at this address")
	}
	m, err := DecodeMint(acct.Owner, acct.Data)
	if err != nil {
		return Token{}, err
	}
	t := Token{Symbol: m.Symbol, Decimals: m.Decimals}
	if t.Symbol == "" && meta != nil {
		if _, sym, err := DecodeMetadata(meta.Owner, mint, meta.Data); err == nil {
			t.Symbol = sym
		}
	}
	return t, nil
}
