package chain

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gagliardetto/solana-go"
	"golang.org/x/time/rate"

	"github.com/keeper-project/keeper/internal/redact"
)

// Client reads Solana state, simulates, sends and confirms transactions and
// Jito bundles. It is safe for concurrent use; create it with New.
//
// Each concern is its own service: Reads (accounts, balances, the slot,
// blockhashes, the fee market), whose methods are the Client's, the
// simulator, the confirmer (signature statuses, blockhash expiry,
// settlement), the sender (RPC sends) and the bundler (Jito bundles and
// their tips). The Client's other methods are those keeper's consumers name
// in their interfaces, each handing over to its service.
type Client struct {
	// Reads reads accounts, balances, the slot and blockhashes.
	*Reads

	sim     *simulator
	confirm *confirmer
	send    *sender
	bundles *bundler
	hc      *http.Client
	sigs    *sigWatcher // wakes confirmations on the node's notification; nil: poll alone
}

// New validates o, applies defaults and returns a Client. It makes no
// request.
func New(o Options) (*Client, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("chain options: %w", err)
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = newHTTPClient()
	}
	o.Logger = o.Logger.With("component", "chain")
	reads, sends, bundleSims := newPools(o, hc)
	c := &Client{hc: hc, Reads: &Reads{pool: reads, commitment: o.Commitment}}
	if u := o.wsEndpoint(); u != "" {
		c.sigs = &sigWatcher{url: u, secrets: redact.Of(u), commitment: o.Commitment, log: o.Logger}
	}
	c.sim = &simulator{reads: c.Reads, tables: &lookupTables{reads: c.Reads}, bundleSims: bundleSims, log: o.Logger}
	c.confirm = &confirmer{reads: c.Reads, grace: o.BlockhashGrace, log: o.Logger}
	c.send = &sender{pool: sends, confirm: c.confirm, sigs: c.sigs,
		poll: o.PollInterval, rebroadcast: o.RebroadcastInterval, log: o.Logger}
	c.bundles = &bundler{send: c.send, tips: newTipBook(o)}
	if o.JitoURL != "" {
		c.bundles.jito = newJitoClient(o, hc)
		c.bundles.tips.jito = c.bundles.jito
	}
	return c, nil
}

// newPools returns the endpoint pools of reads (RPCURLs), of sends
// (SendURL, if any, then RPCURLs) and of bundle simulations
// (SimulateBundleURL, or the reads'), sharing one rate limit.
func newPools(o Options, hc *http.Client) (reads, sends, bundleSims *pool) {
	lim := rate.NewLimiter(rate.Limit(o.RateLimit), o.RateBurst)
	rpcs := make([]*endpoint, len(o.RPCURLs))
	for i, u := range o.RPCURLs {
		rpcs[i] = newEndpoint(u, hc, nil)
	}
	reads = newPool(rpcs, lim, o)
	if o.SendURL != "" {
		rpcs = append([]*endpoint{newEndpoint(o.SendURL, hc, nil)}, rpcs...)
	}
	sends, bundleSims = newPool(rpcs, lim, o), reads
	if o.SimulateBundleURL != "" {
		bundleSims = newPool([]*endpoint{newEndpoint(o.SimulateBundleURL, hc, nil)}, lim, o)
	}
	return reads, sends, bundleSims
}

// Close stops a background refresh of the tip accounts and releases idle
// connections and the websocket. The Client must not be used afterwards.
func (c *Client) Close() error {
	c.bundles.tips.close()
	c.sigs.close()
	c.hc.CloseIdleConnections()
	return nil
}

// Simulate runs simulateTransaction on the wire transaction raw at the
// client's commitment, and computes the wallet's outflows. raw must be
// unsigned by keeper (its slot zero, the market's signatures kept); a
// transaction carrying the wallet's signature is refused with
// ErrSignedByWallet before any request is made. Signature verification is
// off (sigVerify false, replaceRecentBlockhash false), so the node runs it
// on the message's own blockhash exactly as the signed transaction would run
// (same accounts, balances and fee), and no transaction keeper signed leaves
// the process before its signatures are journaled. On a node that returns
// the accounts' balances before and after with the simulation (Agave's
// current validators), that one call is all: see simulateWithBalances. On an
// older node it fetches the pre-state of the wallet and of every account the
// message references (static keys and writable lookup-table entries) that is
// an SPL Token or Token-2022 account owned by the wallet, and asks the
// simulation for their post-state. It reads that state again after the
// simulation and measures only when both reads agree, so that a transfer
// landing meanwhile (another action of keeper's, or anyone paying the
// wallet) can neither hide an outflow nor be charged to this one; after
// maxSimulateTries moving reads it returns ErrWalletMoving.
//
// A transaction that fails in simulation returns its SimResult (logs, units,
// fee) together with a *SimError; Outflows are then zero.
func (c *Client) Simulate(ctx context.Context, raw []byte, wallet solana.PublicKey) (*SimResult, error) {
	return c.sim.simulate(ctx, raw, wallet)
}

// SimulateSequence simulates wire transactions, unsigned by keeper as for
// Simulate (ErrSignedByWallet otherwise; skipSigVerify true,
// replaceRecentBlockhash false), in order on accumulated state with
// Jito-Solana's simulateBundle: each transaction sees what its predecessors
// wrote, fees included, and the run stops at the first failure. It returns
// one SimResult per transaction that ran, with the wallet's outflows
// measured from that transaction's own pre- and post-execution accounts, so
// a token account an earlier transaction created is watched in the later
// ones. A failing transaction's result comes last, with a *SimError whose
// Index says which it is.
//
// It returns ErrBundleSimUnavailable when the endpoint has no
// simulateBundle; the caller then simulates what it can with Simulate.
func (c *Client) SimulateSequence(ctx context.Context, raws [][]byte, wallet solana.PublicKey) ([]*SimResult, error) {
	return c.sim.sequence(ctx, raws, wallet)
}

// SendAndConfirm sends the transactions through RPC in array order, each
// confirmed at the client's commitment before the next is sent. Each is
// sent with skipPreflight and maxRetries 0, and its same bytes are sent
// again every RebroadcastInterval until it is confirmed, lands with an error
// (OutcomeFailed, terminal) or its blockhash provably expired
// (OutcomeExpired, or OutcomePartial when earlier ones landed). An "already
// processed" answer counts as sent; "blockhash not found" is not final.
//
// Simulate first: nothing is simulated here. The error is non-nil only when
// the input is unusable (nothing sent) or ctx ended before the outcome was
// proven (OutcomeUnknown: settle later).
func (c *Client) SendAndConfirm(ctx context.Context, txs []Signed) (Result, error) {
	return c.send.sendAndConfirm(ctx, txs)
}

// SendBundle lands the market's transactions as one atomic Jito bundle, in
// array order, with keeper's tip transaction (made by tip) appended last.
//
// The tip starts at pol.Floor. A tip transaction is never made twice: when
// this client already made a tip of those lamports with that blockhash,
// another tip account is paid, or, all of them taken, a lamport more (never
// above pol.Cap). While the blockhashes are valid, a bundle the
// engine reports Failed, or that is neither landed nor failed RaiseAfter
// after it was accepted, counts as dropped and is resubmitted with the same
// market transactions and a new tip transaction raised per the policy, never
// above pol.Cap. Landing is judged by our own RPC's signature statuses, not
// by the engine: the outcome is OutcomeLanded when every market transaction
// reached the commitment, OutcomeExpired when none landed and every
// blockhash provably expired.
//
// Four market transactions at most fit beside the tip. With more, or when a
// bundle at the cap is dropped again, pol.FallbackRPC decides: send them
// one by one through RPC (Route RPCFallback, atomicity lost; the same bytes,
// so a late bundle and the RPC sends can never both execute) or refuse
// (OutcomeRefused with ErrBundleFull when nothing was sent; otherwise keep
// resubmitting at the cap until expiry). The error is non-nil only for
// unusable input (nothing sent), a first tip transaction that could not be
// made (nothing sent) or a context that ended first (OutcomeUnknown).
func (c *Client) SendBundle(ctx context.Context, txs []Signed, tip TipFunc, pol TipPolicy) (Result, error) {
	return c.bundles.sendBundle(ctx, txs, tip, pol)
}

// Statuses returns what the chain knows of each signature, searching the
// node's whole transaction history (getSignatureStatuses with
// searchTransactionHistory), in the order given.
func (c *Client) Statuses(ctx context.Context, sigs []solana.Signature) ([]Status, error) {
	return c.confirm.statuses(ctx, sigs, true)
}

// Settle tells, for the earlier attempts of one action (each the market
// transactions it signed, not tip transactions), whether one landed, one may
// still land, or none ever can. It searches the whole transaction history,
// checks every blockhash at the commitment and at processed, and searches
// the history again before answering VerdictDead, so that a transaction
// landing during the check is not missed. Unlike SendAndConfirm it applies
// no grace to a blockhash it has never seen valid: call it after the node has
// caught up (a restart takes longer than the lag it guards against).
func (c *Client) Settle(ctx context.Context, attempts [][]TxRef) (Settlement, error) {
	return c.confirm.settle(ctx, attempts)
}
