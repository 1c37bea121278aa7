package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/internal/servertiming"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// ControlPrefix is the path prefix of the control routes that a Control serves beside the market API
// (see Sim.StartControlled): POST ControlPrefix+"advance", POST ControlPrefix+"amm", GET
// ControlPrefix+"state", GET ControlPrefix+"squads" and POST ControlPrefix+"squads/vote".
const ControlPrefix = "/_sim/"

// Control drives and inspects a Sim from another process, for end-to-end tests that run keeper as a
// real binary: processes cannot share a synctest bubble, so the test moves the simulator's manual
// clock over HTTP instead.
//
// POST /_sim/advance takes an AdvanceRequest and answers an AdvanceResult: it moves a
// *chainsim.ManualClock forward and runs the scenario events that became due (409 for any other
// clock). With after_traffic it first waits until the RPC and Jito services have served more requests
// than that, which paces a test's clock to the traffic of the process under test. POST /_sim/amm
// takes a scenario.AMMEvent (name, base_reserve, price, quote_skew_bps: the amm event of a scenario)
// and answers the pool's AMMState: a moved price, a thin pool or a bad quote. GET /_sim/state
// answers a ControlState: the wallet's balances, every loan's health, every CLMM position's range and
// fees, every withdrawal request, every strategy's idle principal and terms, and every landed
// transaction the operator's wallet signed.
//
// GET /_sim/squads answers a SquadsState: each multisig of the scenario (`multisigs:`) as the chain
// holds it, with every vault transaction's creator and its proposal's status and votes. POST
// /_sim/squads/vote takes a SquadsVote and lands one voting member's proposal_approve or
// proposal_reject, signed with the member's key (the simulator holds the voters' keys), as the
// member's wallet would; it answers the proposal's ProposalState after the vote, 404 for an unknown
// multisig or voter, 400 for a bad body and 409 when the program refuses the vote (the transaction
// failed: already voted, not active, stale).
//
// A Control only exists when a caller makes one: `keeper sim` does so only when asked. It is safe for
// concurrent use.
type Control struct {
	sim       *Sim
	advanceMu sync.Mutex // serializes the clock moves of Advance
	traffic   *traffic
	report    stateReport
}

// traffic counts the requests a controlled simulator serves and records the landed transactions
// the operator's wallet signed.
type traffic struct {
	wallet solana.PublicKey

	mu      sync.Mutex
	chain   uint64        // guarded by mu; RPC and Jito requests counted by countChain
	changed chan struct{} // guarded by mu; closed (and replaced) when chain grows
	signed  []SignedTx    // guarded by mu; landed transactions the wallet signed, in landing order
	market  uint64        // guarded by mu; market API requests counted by countMarket
	// service is guarded by mu; the services' own time on their answers, by
	// ServiceTime's key.
	service map[string]ServiceTime
	// notified is guarded by mu; when the write of each signature's first
	// websocket notification started, by signature (see noteNotified).
	notified map[string]time.Time
}

// NewControl returns a Control of s. It records landed transactions from now on, so make it before
// anything is sent to s.
func NewControl(s *Sim) *Control {
	c := &Control{sim: s, traffic: &traffic{wallet: s.w.Wallet, changed: make(chan struct{})},
		report: stateReport{acc: s.accounts, events: s.events}}
	s.chain.OnLanded(c.traffic.noteLanded)
	s.chain.Pubsub.OnNotified(c.traffic.noteNotified)
	return c
}

// noteNotified records when the write of sig's first signature notification to a subscriber
// started.
func (t *traffic) noteNotified(sig solana.Signature, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.notified == nil {
		t.notified = map[string]time.Time{}
	}
	if key := sig.String(); t.notified[key].IsZero() {
		t.notified[key] = at.UTC()
	}
}

// noteLanded records a landed transaction when the operator's wallet is one of its signers.
func (t *traffic) noteLanded(l chainsim.Landed) {
	if l.Transaction == nil {
		return
	}
	msg := l.Transaction.Message
	n := min(int(msg.Header.NumRequiredSignatures), len(msg.AccountKeys))
	at := slices.Index(msg.AccountKeys[:n], t.wallet)
	if at < 0 {
		return
	}
	tx := SignedTx{Signature: l.Signature.String(), Slot: l.Slot, BlockTime: l.BlockTime.UTC(), Fee: l.Fee,
		SentAt: l.Sent.UTC(), LandedAt: l.At.UTC(), ConfirmedAt: l.BlockTime.Add(chainsim.SlotDuration).UTC(), FeePayer: at == 0, BundleID: l.BundleID}
	if l.Err != nil {
		tx.Err = l.Err.Error()
	}
	t.mu.Lock()
	t.signed = append(t.signed, tx)
	t.mu.Unlock()
}

// countChain wraps the handler of chain service svc so that each request it receives is counted,
// and the service's own time on each answer noted (see noteService).
func (t *traffic) countChain(svc string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.mu.Lock()
		t.chain++
		close(t.changed)
		t.changed = make(chan struct{})
		t.mu.Unlock()
		h.ServeHTTP(w, r)
		t.noteService(svc, w.Header())
	})
}

// countMarket wraps the market API handler so that each request it receives is counted, and the
// market's own time on each answer noted (see noteService).
func (t *traffic) countMarket(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.mu.Lock()
		t.market++
		t.mu.Unlock()
		h.ServeHTTP(w, r)
		t.noteService("market", w.Header())
	})
}

// noteService adds the work and the injected latency an answer's Server-Timing header reports to
// the service's record; an answer without one (a fault, a websocket, a control route) adds nothing.
func (t *traffic) noteService(svc string, h http.Header) {
	tm, ok := servertiming.Parse(h.Get(servertiming.Header))
	if !ok {
		return
	}
	k := svc + " " + tm.Name
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.service == nil {
		t.service = map[string]ServiceTime{}
	}
	st := t.service[k]
	st.Answers++
	st.Seconds += tm.Work.Seconds()
	st.LatencySeconds += tm.Latency.Seconds()
	t.service[k] = st
}

// services returns a copy of the services' record.
func (t *traffic) services() map[string]ServiceTime {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.service)
}

// counts returns how many chain service requests countChain and market API requests countMarket
// have seen.
func (t *traffic) counts() (chain, market uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.chain, t.market
}

// signedTxs returns the landed transactions that the operator's wallet signed, in landing order.
func (t *traffic) signedTxs() []SignedTx {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := slices.Clone(t.signed)
	for i := range out {
		out[i].NotifiedAt = t.notified[out[i].Signature]
	}
	return out
}

// wait blocks until more than after chain requests were counted, or ctx ends.
func (t *traffic) wait(ctx context.Context, after uint64) error {
	for {
		t.mu.Lock()
		n, changed := t.chain, t.changed
		t.mu.Unlock()
		if n > after {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("sim control: advance: waiting for chain traffic beyond %d requests: %w", after, ctx.Err())
		}
	}
}

// CountTraffic wraps the handler of chain service svc (RPC or Jito) so that each request it receives
// counts towards the traffic that AdvanceRequest.AfterTraffic waits for, and the time the service
// worked on each answer is added to ControlState.Service.
func (c *Control) CountTraffic(svc chainsim.Service, h http.Handler) http.Handler {
	return c.traffic.countChain(string(svc), h)
}

// CountMarket wraps the market API handler so that each request it receives is counted in
// ControlState.MarketRequests, and the time the market worked on each answer in
// ControlState.Service. Market requests do not pace the clock.
func (c *Control) CountMarket(h http.Handler) http.Handler { return c.traffic.countMarket(h) }

// Traffic returns how many chain service requests CountTraffic has seen.
func (c *Control) Traffic() uint64 {
	n, _ := c.traffic.counts()
	return n
}

// Handler returns the handler of the control routes under ControlPrefix. Other paths are 404s.
func (c *Control) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+ControlPrefix+"advance", c.serveAdvance)
	mux.HandleFunc("GET "+ControlPrefix+"state", c.serveState)
	mux.HandleFunc("POST "+ControlPrefix+"amm", c.serveAMM)
	mux.HandleFunc("GET "+ControlPrefix+"squads", c.serveSquads)
	mux.HandleFunc("POST "+ControlPrefix+"squads/vote", c.serveVote)
	return mux
}

// serveAMM handles POST /_sim/amm: it changes an AMM pool as a scenario's amm event does.
func (c *Control) serveAMM(w http.ResponseWriter, r *http.Request) {
	var ev scenario.AMMEvent
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ev); err != nil {
		writeControlError(w, http.StatusBadRequest, fmt.Errorf("sim control: amm: bad body: %w", err))
		return
	}
	c.sim.mu.Lock() // the market's lock: no build reads the pool half-changed
	st, err := c.sim.amms.change(ev)
	c.sim.mu.Unlock()
	if err != nil {
		writeControlError(w, http.StatusBadRequest, fmt.Errorf("sim control: amm: %w", err))
		return
	}
	writeControlJSON(w, st)
}

// serveAdvance handles POST /_sim/advance.
func (c *Control) serveAdvance(w http.ResponseWriter, r *http.Request) {
	var req AdvanceRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeControlError(w, http.StatusBadRequest, fmt.Errorf("sim control: advance: bad body: %w", err))
		return
	}
	res, err := c.Advance(r.Context(), req)
	switch {
	case errors.Is(err, errNotManual):
		writeControlError(w, http.StatusConflict, err)
	case errors.Is(err, errBadAdvance):
		writeControlError(w, http.StatusBadRequest, err)
	case r.Context().Err() != nil:
		writeControlError(w, http.StatusServiceUnavailable, err)
	case err != nil:
		writeControlError(w, http.StatusInternalServerError, err)
	default:
		writeControlJSON(w, res)
	}
}

// serveState handles GET /_sim/state.
func (c *Control) serveState(w http.ResponseWriter, _ *http.Request) {
	st, err := c.State()
	if err != nil {
		writeControlError(w, http.StatusInternalServerError, err)
		return
	}
	writeControlJSON(w, st)
}

// controlError is the body of a failed control request.
type controlError struct {
	Error string `json:"error"`
}

func writeControlError(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(controlError{Error: err.Error()})
}

func writeControlJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
