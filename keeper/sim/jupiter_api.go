package sim

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/txbuild"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// JupiterPrefix is where the market's address serves the simulator's Jupiter API, below the market
// URL (which ends in /v1): a keeper's jupiter base URL is the market URL followed by it.
const JupiterPrefix = "/jupiter"

// jupiterRoot is JupiterPrefix from the server's root.
const jupiterRoot = "/v1" + JupiterPrefix

// maxJupiterBody bounds a swap-instructions request.
const maxJupiterBody = 64 << 10

// Jupiter's paths and its swap modes (the wire is the simulator's own, like apiwire's: it does not
// import keeper's client).
const (
	jupiterQuotePath = "/swap/v1/quote"
	jupiterSwapPath  = "/swap/v1/swap-instructions"
	jupiterExactIn   = "ExactIn"
	jupiterExactOut  = "ExactOut"
	// jupiterNoRoute is the error Jupiter answers when it finds no route.
	jupiterNoRoute = "COULD_NOT_FIND_ANY_ROUTE"
)

// withJupiter serves Jupiter's swap API (GET /swap/v1/quote, POST /swap/v1/swap-instructions) under
// JupiterPrefix over the scenario's AMM pools, and everything else with next. Routes are direct (one
// pool per pair), ExactIn or ExactOut; the answers have Jupiter's shapes (amounts as strings).
func (s *Sim) withJupiter(next http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", next)
	mux.HandleFunc("GET "+jupiterRoot+jupiterQuotePath, s.jupiterQuote)
	mux.HandleFunc("POST "+jupiterRoot+jupiterSwapPath, s.jupiterSwap)
	return mux
}

// jupiterError answers an error as Jupiter does: {"error": "..."}.
func jupiterError(w http.ResponseWriter, status int, format string, args ...any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": fmt.Sprintf(format, args...)})
}

// quoteAnswer is a quote on the wire.
type quoteAnswer struct {
	InputMint            string      `json:"inputMint"`
	InAmount             string      `json:"inAmount"`
	OutputMint           string      `json:"outputMint"`
	OutAmount            string      `json:"outAmount"`
	OtherAmountThreshold string      `json:"otherAmountThreshold"`
	SwapMode             string      `json:"swapMode"`
	SlippageBps          uint16      `json:"slippageBps"`
	PriceImpactPct       string      `json:"priceImpactPct"`
	RoutePlan            []routeStep `json:"routePlan"`
	ContextSlot          uint64      `json:"contextSlot"`
}

type routeStep struct {
	SwapInfo swapInfo `json:"swapInfo"`
	Percent  int      `json:"percent"`
}

type swapInfo struct {
	AmmKey     string `json:"ammKey"`
	Label      string `json:"label"`
	InputMint  string `json:"inputMint"`
	OutputMint string `json:"outputMint"`
	InAmount   string `json:"inAmount"`
	OutAmount  string `json:"outAmount"`
	FeeAmount  string `json:"feeAmount"`
	FeeMint    string `json:"feeMint"`
}

// quoteQuery is a quote request as the simulator reads it.
type quoteQuery struct {
	in, out  solana.PublicKey
	amount   uint64
	slip     uint64
	exactOut bool
}

// readQuote reads a quote request; an error is the answer's message.
func readQuote(q url.Values) (quoteQuery, error) {
	in, errIn := solana.PublicKeyFromBase58(q.Get("inputMint"))
	out, errOut := solana.PublicKeyFromBase58(q.Get("outputMint"))
	amount, errAmt := strconv.ParseUint(q.Get("amount"), 10, 64)
	slip, errSlip := strconv.ParseUint(cmpOrStr(q.Get("slippageBps"), "50"), 10, 16)
	mode := cmpOrStr(q.Get("swapMode"), jupiterExactIn)
	switch {
	case errIn != nil || errOut != nil:
		return quoteQuery{}, errors.New("inputMint and outputMint must be base58 mints")
	case errAmt != nil || amount == 0 || errSlip != nil || slip > 10000:
		return quoteQuery{}, errors.New("amount must be a positive integer and slippageBps at most 10000")
	case mode != jupiterExactIn && mode != jupiterExactOut:
		return quoteQuery{}, fmt.Errorf("swapMode %q is neither %s nor %s", mode, jupiterExactIn, jupiterExactOut)
	}
	return quoteQuery{in: in, out: out, amount: amount, slip: slip, exactOut: mode == jupiterExactOut}, nil
}

// jupiterQuote prices a swap on the pool of the pair from its reserves on chain now, as Jupiter does:
// ExactIn fixes the input (amount) and its otherAmountThreshold is the least output slippage allows;
// ExactOut fixes the output (amount), inAmount is the input the pool's curve needs and its
// otherAmountThreshold the most input slippage allows. A pool with quote_skew_bps quotes a better
// deal than it executes (more output, or less input); one with no_exact_out has no ExactOut route.
func (s *Sim) jupiterQuote(w http.ResponseWriter, r *http.Request) {
	qq, err := readQuote(r.URL.Query())
	if err != nil {
		jupiterError(w, http.StatusBadRequest, "%v", err)
		return
	}
	p := s.amms.route(qq.in, qq.out)
	if p == nil {
		jupiterError(w, http.StatusBadRequest, jupiterNoRoute)
		return
	}
	spec := s.amms.spec(p)
	rin, rout := s.amms.reserves(p, qq.in, qq.out)
	skew := 1 + float64(spec.QuoteSkewBps)/10000
	var in, out, threshold uint64
	mode := jupiterExactIn
	if qq.exactOut {
		need, ok := programs.AMMIn(rin, rout, qq.amount, spec.FeeBps)
		if spec.NoExactOut || !ok {
			jupiterError(w, http.StatusBadRequest, jupiterNoRoute)
			return
		}
		in, out, mode = uint64(float64(need)/skew), qq.amount, jupiterExactOut
		threshold = in * (10000 + qq.slip) / 10000
	} else {
		in, out = qq.amount, uint64(float64(programs.AMMOut(rin, rout, qq.amount, spec.FeeBps))*skew)
		threshold = out * (10000 - qq.slip) / 10000
	}
	impact := 0.0
	if spot := float64(rout) / float64(rin) * float64(in); spot > 0 {
		impact = max(0, 1-float64(out)/spot)
	}
	fee := in * uint64(spec.FeeBps) / 10000
	amt := func(v uint64) string { return strconv.FormatUint(v, 10) }
	ans := quoteAnswer{InputMint: qq.in.String(), InAmount: amt(in), OutputMint: qq.out.String(), OutAmount: amt(out),
		OtherAmountThreshold: amt(threshold), SwapMode: mode, SlippageBps: uint16(qq.slip),
		PriceImpactPct: strconv.FormatFloat(impact, 'f', -1, 64), ContextSlot: s.chain.Ledger.Slot(),
		RoutePlan: []routeStep{{Percent: 100, SwapInfo: swapInfo{AmmKey: p.addr.String(), Label: "sim-amm " + spec.Name,
			InputMint: qq.in.String(), OutputMint: qq.out.String(), InAmount: amt(in), OutAmount: amt(out), FeeAmount: amt(fee), FeeMint: qq.in.String()}}}}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(ans)
}

// cmpOrStr returns s, or def when s is empty.
func cmpOrStr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// swapAnswer is the answer of swap-instructions.
type swapAnswer struct {
	ComputeBudgetInstructions   []apiwire.Instruction `json:"computeBudgetInstructions"`
	SetupInstructions           []apiwire.Instruction `json:"setupInstructions"`
	SwapInstruction             apiwire.Instruction   `json:"swapInstruction"`
	CleanupInstruction          *apiwire.Instruction  `json:"cleanupInstruction"`
	AddressLookupTableAddresses []string              `json:"addressLookupTableAddresses"`
}

// quoteIn is what swap-instructions reads of the quote it is given (amounts are strings on Jupiter's wire).
type quoteIn struct {
	InputMint            string `json:"inputMint"`
	OutputMint           string `json:"outputMint"`
	InAmount             uint64 `json:"inAmount,string"`
	OutAmount            uint64 `json:"outAmount,string"`
	OtherAmountThreshold uint64 `json:"otherAmountThreshold,string"`
	SwapMode             string `json:"swapMode"`
}

// instruction returns the data of the swap program's instruction executing q: an exact-input sale
// whose minimum output is otherAmountThreshold, or an exact-output purchase of outAmount whose
// maximum input is otherAmountThreshold (Jupiter's exactOutRoute derives the same cap on chain from
// the quoted input and the slippage).
func (q quoteIn) instruction() []byte {
	if q.SwapMode == jupiterExactOut {
		return instr.SwapExactOutOp{AmountOut: q.OutAmount, MaxIn: q.OtherAmountThreshold}.Encode()
	}
	return instr.SwapOp{AmountIn: q.InAmount, MinOut: q.OtherAmountThreshold}.Encode()
}

// swapRequest is the body of swap-instructions as the simulator reads it.
type swapRequest struct {
	QuoteResponse           json.RawMessage `json:"quoteResponse"`
	UserPublicKey           string          `json:"userPublicKey"`
	DestinationTokenAccount string          `json:"destinationTokenAccount"`
}

// jupiterSwap turns a quote into the instructions of its swap: the creation of the user's output
// token account (setup) and the swap program's instruction, whose minimum output is the quote's
// otherAmountThreshold (ExactOut: its exact output, otherAmountThreshold the most input). The AMM's
// hostile mode changes them.
func (s *Sim) jupiterSwap(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxJupiterBody+1))
	if err != nil || len(body) > maxJupiterBody {
		jupiterError(w, http.StatusBadRequest, "body unreadable or larger than %d bytes", maxJupiterBody)
		return
	}
	var req swapRequest
	var q quoteIn
	dec := json.NewDecoder(strings.NewReader(string(body)))
	if err := dec.Decode(&req); err != nil || json.Unmarshal(req.QuoteResponse, &q) != nil {
		jupiterError(w, http.StatusBadRequest, "body must hold quoteResponse and userPublicKey")
		return
	}
	user, err := solana.PublicKeyFromBase58(req.UserPublicKey)
	in, errIn := solana.PublicKeyFromBase58(q.InputMint)
	out, errOut := solana.PublicKeyFromBase58(q.OutputMint)
	if err != nil || errIn != nil || errOut != nil || req.DestinationTokenAccount != "" || q.InAmount == 0 ||
		(q.SwapMode == jupiterExactOut && q.OutAmount == 0) {
		jupiterError(w, http.StatusBadRequest, "userPublicKey and the quote's mints must be base58, inAmount positive; destinationTokenAccount is not supported")
		return
	}
	p := s.amms.route(in, out)
	if p == nil {
		jupiterError(w, http.StatusBadRequest, jupiterNoRoute)
		return
	}
	spec := s.amms.spec(p)
	dest := user
	if spec.Hostile == scenario.AMMHostileStrangerOutput {
		dest = ids.Stranger()
	}
	setup := []txbuild.Instruction{txbuild.CreateATAIdempotent(user, dest, out)}
	if spec.Hostile == scenario.AMMHostileHiddenProgram {
		setup = append(setup, txbuild.Instruction{Program: ids.DerivedKey("program", "hidden"), Data: []byte{1},
			Accounts: []solana.AccountMeta{txbuild.Meta(user, true, true)}})
	}
	swap := txbuild.Instruction{Program: ids.SwapProgramID,
		Data:     q.instruction(),
		Accounts: programs.SwapAccounts(user, p.addr, in, out, dest)}
	ans := swapAnswer{ComputeBudgetInstructions: []apiwire.Instruction{}, SwapInstruction: apiIx(swap),
		AddressLookupTableAddresses: []string{}}
	for _, ix := range setup {
		ans.SetupInstructions = append(ans.SetupInstructions, apiIx(ix))
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(ans)
}

// apiIx returns an instruction in the API's shape.
func apiIx(ix txbuild.Instruction) apiwire.Instruction {
	out := apiwire.Instruction{ProgramID: ix.Program.String(), Data: base64.StdEncoding.EncodeToString(ix.Data), Accounts: []apiwire.AccountMeta{}}
	for _, a := range ix.Accounts {
		out.Accounts = append(out.Accounts, apiwire.AccountMeta{Pubkey: a.PublicKey.String(), IsSigner: a.IsSigner, IsWritable: a.IsWritable})
	}
	return out
}
