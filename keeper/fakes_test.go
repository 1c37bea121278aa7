package keeper

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/programs/token"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/signer"
)

// eventLog records, in order, what the fakes were asked to do, so a test
// can assert the order of steps across dependencies.
type eventLog struct {
	mu     sync.Mutex
	events []string
}

func (l *eventLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fmt.Sprintf(format, args...))
}

func (l *eventLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.events...)
}

// stepSigner is the real signer, logging and offering a crash point where
// the action path signs an answer, so tests see signing's place among the
// steps.
type stepSigner struct {
	*signer.Signer
	log   *eventLog
	crash *crashPoint
}

// SignSequence implements Signer.
func (s *stepSigner) SignSequence(txs []*signer.Tx, kind signer.Kind, b signer.Bounds) ([]*signer.Signed, error) {
	s.log.add("signer.SignSequence")
	s.crash.hit("signer.SignSequence")
	return s.Signer.SignSequence(txs, kind, b)
}

// crashPoint makes one named step of the action path panic, as if the
// process were killed just before it. It fires once, then disarms.
type crashPoint struct {
	mu   sync.Mutex
	at   string
	skip int // hits of at to let pass before firing
}

// crash is the value a crashPoint panics with.
type crash struct{ step string }

func (c *crashPoint) set(step string) { c.setAfter(step, 0) }

// setAfter arms the crash point at the (skip+1)th hit of step.
func (c *crashPoint) setAfter(step string, skip int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at, c.skip = step, skip
}

// hit panics when step is the armed crash point.
func (c *crashPoint) hit(step string) {
	c.mu.Lock()
	fire := c.at != "" && c.at == step
	if fire && c.skip > 0 {
		c.skip--
		fire = false
	}
	if fire {
		c.at = ""
	}
	c.mu.Unlock()
	if fire {
		panic(crash{step: step})
	}
}

// Ways a fake market's transaction can be hostile.
const (
	hostileTransfer  = "transfer"   // an extra System transfer from the wallet to a stranger
	hostileProgram   = "program"    // an extra instruction of a program on no allowlist
	hostileNotSigner = "not-signer" // the wallet is not a required signer
	hostileFeePayer  = "fee-payer"  // the co-signer pays the fees
	// hostileTokenTransfer: an extra token Transfer of 500,000 units (no
	// mint named, within the repay's bound) from the wallet's token account
	// to a stranger's, with the wallet as authority.
	hostileTokenTransfer = "token-transfer"
)

// marketReply scripts one build call of the fake market.
type marketReply struct {
	err     error  // returned instead of transactions
	hostile string // one of the hostile* constants, or empty
	txs     int    // transactions to build; 0 means 1
	legacy  bool   // build legacy messages instead of v0
}

// buildCall is one build request the fake market received.
type buildCall struct {
	endpoint string
	key      market.IdempotencyKey
	req      any
}

// fakeMarket builds real Solana transactions the way the market API does:
// the wallet pays and signs, the market's co-signer signs read-only and has
// already signed. A build with an idempotency key it has seen replays the
// same transactions. Replies are scripted per call; unscripted calls build
// honest transactions. Reads are not used by the action path and fail.
type fakeMarket struct {
	wallet   solana.PublicKey
	cosigner solana.PrivateKey
	program  solana.PublicKey // the market program
	earn     solana.PublicKey // the earn vaults' program
	state    solana.PublicKey // an account the market instruction writes
	log      *eventLog
	crash    *crashPoint

	mu      sync.Mutex
	replies []marketReply
	calls   []buildCall
	cache   map[market.IdempotencyKey][]*solana.Transaction
}

var errNotScripted = errors.New("fake: call not used by the action path")

func newFakeMarket(wallet solana.PublicKey, program, earn string, log *eventLog, crash *crashPoint) (*fakeMarket, error) {
	cos, err := solana.NewRandomPrivateKey()
	if err != nil {
		return nil, err
	}
	state, err := solana.NewRandomPrivateKey()
	if err != nil {
		return nil, err
	}
	return &fakeMarket{wallet: wallet, cosigner: cos, program: solana.MustPublicKeyFromBase58(program),
		earn: solana.MustPublicKeyFromBase58(earn), state: state.PublicKey(), log: log, crash: crash,
		cache: map[market.IdempotencyKey][]*solana.Transaction{}}, nil
}

// script queues replies for the next build calls.
func (m *fakeMarket) script(r ...marketReply) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.replies = append(m.replies, r...)
}

// keys returns the idempotency keys of every build call, in order.
func (m *fakeMarket) keys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, len(m.calls))
	for i, c := range m.calls {
		out[i] = string(c.key)
	}
	return out
}

// prepare builds and caches the honest transactions for key, so a later
// build with that key only replays them.
func (m *fakeMarket) prepare(key market.IdempotencyKey) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, err := m.compose(key, m.program, marketReply{})
	return err
}

// prepareN is prepare for an answer of n transactions.
func (m *fakeMarket) prepareN(key market.IdempotencyKey, n int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, err := m.compose(key, m.program, marketReply{txs: n})
	return err
}

// build records a build call and returns its transactions.
func (m *fakeMarket) build(endpoint string, key market.IdempotencyKey, req any, program solana.PublicKey) ([]*solana.Transaction, error) {
	m.crash.hit("market.build")
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, buildCall{endpoint: endpoint, key: key, req: req})
	m.log.add("build %s", key)
	var r marketReply
	if len(m.replies) > 0 {
		r, m.replies = m.replies[0], m.replies[1:]
	}
	if r.err != nil {
		return nil, r.err
	}
	return m.compose(key, program, r)
}

// compose returns the cached transactions of key, or builds and caches them.
func (m *fakeMarket) compose(key market.IdempotencyKey, program solana.PublicKey, r marketReply) ([]*solana.Transaction, error) {
	if txs, ok := m.cache[key]; ok {
		return txs, nil
	}
	txs := make([]*solana.Transaction, max(r.txs, 1))
	for i := range txs {
		tx, err := m.transaction(key, i, program, r)
		if err != nil {
			return nil, fmt.Errorf("fake market: build %s tx %d: %w", key, i, err)
		}
		txs[i] = tx
	}
	m.cache[key] = txs
	return txs, nil
}

// transaction builds transaction seq of key, co-signed by the market.
func (m *fakeMarket) transaction(key market.IdempotencyKey, seq int, program solana.PublicKey, r marketReply) (*solana.Transaction, error) {
	payer, walletSigns := m.wallet, true
	switch r.hostile {
	case hostileFeePayer:
		payer = m.cosigner.PublicKey()
	case hostileNotSigner:
		payer, walletSigns = m.cosigner.PublicKey(), false
	}
	wallet := solana.Meta(m.wallet).WRITE()
	if walletSigns {
		wallet.SIGNER()
	}
	ixs := []solana.Instruction{solana.NewInstruction(program, solana.AccountMetaSlice{
		wallet, solana.Meta(m.cosigner.PublicKey()).SIGNER(), solana.Meta(m.state).WRITE(),
	}, []byte{7, byte(seq)})}
	stranger := keyOf("stranger")
	switch r.hostile {
	case hostileTransfer:
		ixs = append(ixs, system.NewTransferInstruction(1_000_000, m.wallet, stranger).Build())
	case hostileProgram:
		ixs = append(ixs, solana.NewInstruction(stranger, solana.AccountMetaSlice{solana.Meta(m.wallet).WRITE().SIGNER()}, []byte{1}))
	case hostileTokenTransfer:
		ixs = append(ixs, token.NewTransferInstruction(500_000, keyOf("wallet usdc"), keyOf("stranger usdc"), m.wallet, nil).Build())
	}
	tx, err := solana.NewTransaction(ixs, blockhashOf(key, seq), solana.TransactionPayer(payer))
	if err != nil {
		return nil, err
	}
	if !r.legacy {
		tx.Message.SetVersion(solana.MessageVersionV0)
	}
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		return nil, err
	}
	tx.Signatures = make([]solana.Signature, tx.Message.Header.NumRequiredSignatures)
	for i, k := range tx.Message.AccountKeys[:tx.Message.Header.NumRequiredSignatures] {
		if k.Equals(m.cosigner.PublicKey()) {
			if tx.Signatures[i], err = m.cosigner.Sign(msg); err != nil {
				return nil, err
			}
		}
	}
	return tx, nil
}

// keyOf derives a public key from a name.
func keyOf(name string) solana.PublicKey {
	sum := sha256.Sum256([]byte(name))
	return solana.PublicKeyFromBytes(sum[:])
}

// blockhashOf gives every build its own blockhash, so the signatures of
// different attempts differ and a replay is byte-identical.
func blockhashOf(key market.IdempotencyKey, seq int) solana.Hash {
	sum := sha256.Sum256(fmt.Appendf(nil, "blockhash %s %d", key, seq))
	return solana.HashFromBytes(sum[:])
}

// apiForm is a transaction as the API's transaction objects carry it: the
// base64 message and the signatures already present.
func apiForm(tx *solana.Transaction) (market.Transaction, error) {
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		return market.Transaction{}, err
	}
	out := market.Transaction{Message: base64.StdEncoding.EncodeToString(msg)}
	for i, sig := range tx.Signatures {
		if !sig.IsZero() {
			out.Signatures = append(out.Signatures, market.Signature{
				PublicKey: tx.Message.AccountKeys[i].String(), Signature: base64.StdEncoding.EncodeToString(sig[:])})
		}
	}
	return out, nil
}

func apiForms(txs []*solana.Transaction) ([]market.Transaction, error) {
	out := make([]market.Transaction, len(txs))
	for i, tx := range txs {
		var err error
		if out[i], err = apiForm(tx); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// BuildLoan implements Market.
func (m *fakeMarket) BuildLoan(_ context.Context, key market.IdempotencyKey, req market.BuildLoanRequest) (*market.BuildLoanResponse, error) {
	txs, err := m.build("build_loan", key, req, m.program)
	if err != nil {
		return nil, err
	}
	forms, err := apiForms(txs)
	if err != nil {
		return nil, err
	}
	return &market.BuildLoanResponse{Loan: req.Loan, Transactions: forms}, nil
}

// UpdateStrategy implements Market.
func (m *fakeMarket) UpdateStrategy(_ context.Context, key market.IdempotencyKey, req market.StrategyUpdateRequest) ([]market.Transaction, error) {
	txs, err := m.build("strategy_update", key, req, m.program)
	if err != nil {
		return nil, err
	}
	return apiForms(txs)
}

// ClaimEarnWithdrawal implements Market: the earn endpoint answers with
// base64 wire transactions, our slot empty.
func (m *fakeMarket) ClaimEarnWithdrawal(_ context.Context, key market.IdempotencyKey, req market.WithdrawClaimRequest) (*market.EarnTxResponse, error) {
	txs, err := m.build("withdraw_claim", key, req, m.earn)
	if err != nil {
		return nil, err
	}
	resp := &market.EarnTxResponse{Action: "withdraw_claim", Address: req.Address, Wallet: req.Wallet, RequestID: req.RequestID}
	for _, tx := range txs {
		wire, err := tx.MarshalBinary()
		if err != nil {
			return nil, err
		}
		resp.TxBase64s = append(resp.TxBase64s, base64.StdEncoding.EncodeToString(wire))
	}
	return resp, nil
}

func (m *fakeMarket) single(endpoint string, key market.IdempotencyKey, req any) (*market.Transaction, error) {
	txs, err := m.build(endpoint, key, req, m.program)
	if err != nil {
		return nil, err
	}
	tx, err := apiForm(txs[0])
	if err != nil {
		return nil, err
	}
	return &tx, nil
}

// TransferPosition implements Market.
func (m *fakeMarket) TransferPosition(_ context.Context, key market.IdempotencyKey, req market.TransferPositionRequest) (*market.Transaction, error) {
	return m.single("transfer_position", key, req)
}

// ClaimFees implements Market.
func (m *fakeMarket) ClaimFees(_ context.Context, key market.IdempotencyKey, req market.ClaimFeesRequest) (*market.Transaction, error) {
	return m.single("claim_fees", key, req)
}

// WithdrawFromStrategy implements Market.
func (m *fakeMarket) WithdrawFromStrategy(_ context.Context, key market.IdempotencyKey, req market.WithdrawStrategyRequest) (*market.Transaction, error) {
	return m.single("strategy_withdraw", key, req)
}

// LoanPages implements Market; the action path does not read.
func (m *fakeMarket) LoanPages(context.Context, market.LoansQuery, func(int, *market.LoansPage) error) error {
	return errNotScripted
}

// AllVaults implements Market; the action path does not read.
func (m *fakeMarket) AllVaults(context.Context, market.VaultsQuery) ([]market.Vault, error) {
	return nil, errNotScripted
}

// BestQuotes implements Market; the action path does not read.
func (m *fakeMarket) BestQuotes(context.Context, market.QuoteRequest) ([]market.Quote, error) {
	return nil, errNotScripted
}

// Loops implements Market; the action path does not read.
func (m *fakeMarket) Loops(context.Context, market.LoopsQuery) ([]market.Loop, error) {
	return nil, errNotScripted
}

// AllVaultDeposits implements Market; the action path does not read.
func (m *fakeMarket) AllVaultDeposits(context.Context, market.VaultDepositsQuery) ([]market.VaultDeposits, error) {
	return nil, errNotScripted
}

// HistoricalHolders implements Market; the action path does not read.
func (m *fakeMarket) HistoricalHolders(context.Context, market.HoldersRequest) ([]market.CollateralHolder, error) {
	return nil, errNotScripted
}

// EarnPosition implements Market; the action path does not read.
func (m *fakeMarket) EarnPosition(context.Context, market.EarnPositionRequest) (*market.EarnPosition, error) {
	return nil, errNotScripted
}

// WithdrawalQueue implements Market; the action path does not read.
func (m *fakeMarket) WithdrawalQueue(context.Context, market.WithdrawalQueueRequest) (*market.WithdrawalQueue, error) {
	return nil, errNotScripted
}

// ForWallet implements Market; the fake builds for its one wallet only.
func (m *fakeMarket) ForWallet(string) (*api.Client, error) {
	return nil, errNotScripted
}
