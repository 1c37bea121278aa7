package chainsim

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/keeper-project/keeper/keeper/sim/chainsim/internal/jsonrpc"
)

// maxBundleIDs is the most bundle ids a status call takes.
const maxBundleIDs = 5

// jitoAPI serves the Jito block engine's bundle methods.
type jitoAPI struct {
	c *Chain
}

// sendBundle: [[tx], {encoding}] → bundle id. Transactions are base58
// unless {"encoding": "base64"} is given.
func (j *jitoAPI) sendBundle(in jsonrpc.Call) (any, *jsonrpc.Error) {
	var (
		encoded []string
		cfg     struct {
			Encoding string `json:"encoding"`
		}
	)
	if rerr := in.NeedWithConfig(&encoded, &cfg); rerr != nil {
		return nil, rerr
	}
	raws := make([][]byte, len(encoded))
	for i, e := range encoded {
		raw, rerr := decodeTxString(e, cfg.Encoding)
		if rerr != nil {
			return nil, rerr
		}
		raws[i] = raw
	}
	id, err := j.c.Bundles.send(raws, in.NeverLand)
	if err != nil {
		if errors.Is(err, ErrInvalidBundle) {
			return nil, jsonrpc.InvalidParams("%v", err)
		}
		return nil, invalidTx(err)
	}
	return id, nil
}

// bundleIDs reads the list of bundle ids of a status call.
func bundleIDs(in jsonrpc.Call) ([]string, *jsonrpc.Error) {
	var ids []string
	if rerr := in.Need(0, &ids); rerr != nil {
		return nil, rerr
	}
	if len(ids) == 0 || len(ids) > maxBundleIDs {
		return nil, jsonrpc.InvalidParams("provide 1 to %d bundle ids, not %d", maxBundleIDs, len(ids))
	}
	return ids, nil
}

// wireBundleStatus is a landed bundle as getBundleStatuses encodes it.
type wireBundleStatus struct {
	BundleID           string         `json:"bundle_id"`
	Transactions       []string       `json:"transactions"`
	Slot               uint64         `json:"slot"`
	ConfirmationStatus string         `json:"confirmation_status"`
	Err                map[string]any `json:"err"`
}

// getBundleStatuses: [[id]] → [landed bundle or null]. Only bundles that
// landed within the status cache (300 slots) are found.
func (j *jitoAPI) getBundleStatuses(in jsonrpc.Call) (any, *jsonrpc.Error) {
	l := j.c.Ledger
	return encodeBundleStatuses(j.c, in, func(b BundleStatus) *wireBundleStatus {
		if b.State != BundleLanded || b.Slot+statusCacheSlots < l.seen {
			return nil
		}
		_, level := confirmation(l.tip.Height, b.BlockHeight)
		sigs := make([]string, len(b.Signatures))
		for i, sig := range b.Signatures {
			sigs[i] = sig.String()
		}
		return &wireBundleStatus{BundleID: b.ID, Transactions: sigs, Slot: b.Slot, ConfirmationStatus: string(level), Err: map[string]any{"Ok": nil}}
	})
}

// wireInflight is a bundle as getInflightBundleStatuses encodes it.
type wireInflight struct {
	BundleID   string  `json:"bundle_id"`
	Status     string  `json:"status"`
	LandedSlot *uint64 `json:"landed_slot"`
}

// getInflightBundleStatuses: [[id]] → [{bundle_id, status, landed_slot}].
func (j *jitoAPI) getInflightBundleStatuses(in jsonrpc.Call) (any, *jsonrpc.Error) {
	return encodeBundleStatuses(j.c, in, func(b BundleStatus) wireInflight {
		out := wireInflight{BundleID: b.ID, Status: string(b.State)}
		if b.State == BundleLanded {
			slot := b.Slot
			out.LandedSlot = &slot
		}
		return out
	})
}

// encodeBundleStatuses answers a status call: it reads the bundle ids and, under
// the chain's lock, encodes what the block engine knows of each.
func encodeBundleStatuses[T any](c *Chain, in jsonrpc.Call, encode func(BundleStatus) T) (any, *jsonrpc.Error) {
	ids, rerr := bundleIDs(in)
	if rerr != nil {
		return nil, rerr
	}
	c.lock()
	defer c.unlock()
	out := make([]T, len(ids))
	for i, id := range ids {
		out[i] = encode(c.Bundles.status(id))
	}
	return contextValue(c.Ledger.tip.Slot, out), nil
}

// getTipAccounts: [] → the 8 tip accounts.
func (j *jitoAPI) getTipAccounts(jsonrpc.Call) (any, *jsonrpc.Error) {
	return keyStrings(j.c.Bundles.tips), nil
}

// TipFloorPath is where the block engine serves the tip floor, as Jito's
// public API does (https://bundles.jito.wtf/api/v1/bundles/tip_floor).
const TipFloorPath = "/api/v1/bundles/tip_floor"

// wireTipFloor is one entry of the tip-floor answer: tips in SOL.
type wireTipFloor struct {
	Time  string  `json:"time"`
	P25   float64 `json:"landed_tips_25th_percentile"`
	P50   float64 `json:"landed_tips_50th_percentile"`
	P75   float64 `json:"landed_tips_75th_percentile"`
	P95   float64 `json:"landed_tips_95th_percentile"`
	P99   float64 `json:"landed_tips_99th_percentile"`
	EMA50 float64 `json:"ema_landed_tips_50th_percentile"`
}

// serveTipFloor answers GET /api/v1/bundles/tip_floor with a one-entry
// array, as Jito's API does.
func (s *Server) serveTipFloor(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "chainsim: the tip floor answers GET", http.StatusMethodNotAllowed)
		return
	}
	f := s.c.Market.TipFloor()
	const lamportsPerSOL = 1e9
	sol := func(l uint64) float64 { return float64(l) / lamportsPerSOL }
	body, err := json.Marshal([]wireTipFloor{{
		Time: f.Time.UTC().Format(time.RFC3339),
		P25:  sol(f.P25), P50: sol(f.P50), P75: sol(f.P75), P95: sol(f.P95), P99: sol(f.P99),
		EMA50: f.EMA50 / lamportsPerSOL,
	}})
	if err != nil {
		http.Error(w, "chainsim: encode the tip floor", http.StatusInternalServerError)
		return
	}
	writeJSON(w, body, false)
}
