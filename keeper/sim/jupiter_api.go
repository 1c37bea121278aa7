package sim

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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

// Jupiter's paths and its only swap mode the simulator serves (the wire is the simulator's own, like
// apiwire's: it does not import keeper's client).
const (
	jupiterQuotePath = "/swap/v1/quote"
	jupiterSwapPath  = "/swap/v1/swap-instructions"
	jupiterExactIn   = "ExactIn"
)

// withJupiter serves Jupiter's swap API (GET /swap/v1/quote, POST /swap/v1/swap-instructions) under
// JupiterPrefix over the scenario's AMM pools, and everything else with next. Only ExactIn direct
// routes exist (one pool per pair); the answers have Jupiter's shapes (amounts as strings).
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

// jupiterQuote prices an ExactIn swap on the pool of the pair, from its reserves on chain now.
func (s *Sim) jupiterQuote(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	in, errIn := solana.PublicKeyFromBase58(q.Get("inputMint"))
	out, errOut := solana.PublicKeyFromBase58(q.Get("outputMint"))
	amount, errAmt := strconv.ParseUint(q.Get("amount"), 10, 64)
	slip, errSlip := strconv.ParseUint(cmpOrStr(q.Get("slippageBps"), "50"), 10, 16)
	switch {
	case errIn != nil || errOut != nil:
		jupiterError(w, http.StatusBadRequest, "inputMint and outputMint must be base58 mints")
		return
	case errAmt != nil || amount == 0 || errSlip != nil || slip > 10000:
		jupiterError(w, http.StatusBadRequest, "amount must be a positive integer and slippageBps at most 10000")
		return
	case q.Get("swapMode") != "" && q.Get("swapMode") != jupiterExactIn:
		jupiterError(w, http.StatusBadRequest, "the simulator quotes ExactIn only")
		return
	}
	p := s.amms.route(in, out)
	if p == nil {
		jupiterError(w, http.StatusBadRequest, "COULD_NOT_FIND_ANY_ROUTE")
		return
	}
	rin, rout := s.amms.reserves(p, in, out)
	got := programs.AMMOut(rin, rout, amount, p.spec.FeeBps)
	// A bad quote promises more (or less) than the pool pays.
	promised := uint64(float64(got) * (1 + float64(p.spec.QuoteSkewBps)/10000))
	spot := float64(rout) / float64(rin) * float64(amount)
	impact := 0.0
	if spot > 0 {
		impact = max(0, 1-float64(got)/spot)
	}
	fee := amount * uint64(p.spec.FeeBps) / 10000
	amt := func(v uint64) string { return strconv.FormatUint(v, 10) }
	ans := quoteAnswer{InputMint: in.String(), InAmount: amt(amount), OutputMint: out.String(), OutAmount: amt(promised),
		OtherAmountThreshold: amt(promised * (10000 - slip) / 10000), SwapMode: jupiterExactIn, SlippageBps: uint16(slip),
		PriceImpactPct: strconv.FormatFloat(impact, 'f', -1, 64), ContextSlot: s.chain.Ledger.Slot(),
		RoutePlan: []routeStep{{Percent: 100, SwapInfo: swapInfo{AmmKey: p.addr.String(), Label: "sim-amm " + p.spec.Name,
			InputMint: in.String(), OutputMint: out.String(), InAmount: amt(amount), OutAmount: amt(promised), FeeAmount: amt(fee), FeeMint: in.String()}}}}
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
	OtherAmountThreshold uint64 `json:"otherAmountThreshold,string"`
}

// swapRequest is the body of swap-instructions as the simulator reads it.
type swapRequest struct {
	QuoteResponse           json.RawMessage `json:"quoteResponse"`
	UserPublicKey           string          `json:"userPublicKey"`
	DestinationTokenAccount string          `json:"destinationTokenAccount"`
}

// jupiterSwap turns a quote into the instructions of its swap: the creation of the user's output
// token account (setup) and the swap program's instruction, whose minimum output is the quote's
// otherAmountThreshold. The AMM's hostile mode changes them.
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
	if err != nil || errIn != nil || errOut != nil || req.DestinationTokenAccount != "" || q.InAmount == 0 {
		jupiterError(w, http.StatusBadRequest, "userPublicKey and the quote's mints must be base58, inAmount positive; destinationTokenAccount is not supported")
		return
	}
	p := s.amms.route(in, out)
	if p == nil {
		jupiterError(w, http.StatusBadRequest, "COULD_NOT_FIND_ANY_ROUTE")
		return
	}
	dest := user
	if p.spec.Hostile == scenario.AMMHostileStrangerOutput {
		dest = ids.Stranger()
	}
	setup := []txbuild.Instruction{txbuild.CreateATAIdempotent(user, dest, out)}
	if p.spec.Hostile == scenario.AMMHostileHiddenProgram {
		setup = append(setup, txbuild.Instruction{Program: ids.DerivedKey("program", "hidden"), Data: []byte{1},
			Accounts: []solana.AccountMeta{txbuild.Meta(user, true, true)}})
	}
	swap := txbuild.Instruction{Program: ids.SwapProgramID,
		Data:     instr.SwapOp{AmountIn: q.InAmount, MinOut: q.OtherAmountThreshold}.Encode(),
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
