package faults

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/inject"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
)

// SpecHelp describes the text Parse reads, for command-line help.
const SpecHelp = "comma-separated SERVICE[.METHOD]:SETTING=VALUE items; SERVICE is market, rpc or jito, METHOD a market endpoint (loans_info, build_loan, ...) or JSON-RPC method; " +
	"SETTING is a fault (server-error, rate-limit, timeout, truncate, never-land, stall; market only: null, wrong-shape, oversize, conflict) " +
	"with a probability (0.1 or 10%), latency or jitter with a duration, lag with a number of slots (the method answers as a node that far behind: statuses, account and blockhash reads), or script with faults joined by '+' " +
	"for the next calls; market.loans_info:mixed-snapshots=once|always makes E3 pages after the first carry another snapshotTs (the first such answer, or every one); " +
	"plus retry-after=DURATION and stall-slots=N; ws:refuse=true answers every websocket (pubsub) upgrade on the RPC port with 503, ws:drop-after=N closes each websocket connection after N notifications " +
	"(e.g. market:server-error=10%,rpc.sendTransaction:never-land=0.2,rpc:latency=20ms)"

// Parse reads a fault configuration written as SpecHelp describes, so that a run with
// faults can be reproduced from the command line with the same text and seed. An empty spec injects
// nothing. The result is validated; an error names the item at fault.
func Parse(spec string) (Faults, error) {
	var f Faults
	for item := range strings.SplitSeq(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if err := f.apply(item); err != nil {
			return Faults{}, fmt.Errorf("faults item %q: %w", item, err)
		}
	}
	if err := f.Validate(); err != nil {
		return Faults{}, err
	}
	return f, nil
}

// apply adds one item of a fault spec.
func (f *Faults) apply(item string) error {
	lhs, value, ok := strings.Cut(item, "=")
	if !ok {
		return fmt.Errorf("want SERVICE[.METHOD]:SETTING=VALUE or a global setting")
	}
	target, setting, scoped := strings.Cut(lhs, ":")
	if !scoped {
		return f.applyGlobal(lhs, value)
	}
	service, method, _ := strings.Cut(target, ".")
	if service == "ws" && method == "" {
		return applyPubsub(&f.Chain.Pubsub, setting, value)
	}
	if setting == mixedSnapshotsSetting {
		return f.applyMixedSnapshots(service, method, value)
	}
	var all *inject.MethodFaults
	var methods *map[string]inject.MethodFaults
	switch service {
	case "market":
		all, methods = &f.Market.All, &f.Market.Endpoints
	case "rpc":
		all, methods = &f.Chain.RPC.All, &f.Chain.RPC.Methods
	case "jito":
		all, methods = &f.Chain.Jito.All, &f.Chain.Jito.Methods
	default:
		return fmt.Errorf("unknown service %q (want market, rpc or jito)", service)
	}
	if method == "" {
		return applySetting(all, setting, value)
	}
	if *methods == nil {
		*methods = map[string]inject.MethodFaults{}
	}
	m := (*methods)[method]
	if err := applySetting(&m, setting, value); err != nil {
		return err
	}
	(*methods)[method] = m
	return nil
}

// mixedSnapshotsSetting names the market's snapshot skew in a fault spec.
const mixedSnapshotsSetting = "mixed-snapshots"

// applyMixedSnapshots sets the market's snapshot skew (market[.loans_info]:mixed-snapshots=WHEN).
func (f *Faults) applyMixedSnapshots(service, method, value string) error {
	if service != "market" || (method != "" && method != apiwire.EndpointLoansInfo) {
		return fmt.Errorf("%s is a fault of market.%s only", mixedSnapshotsSetting, apiwire.EndpointLoansInfo)
	}
	k, err := ParseSnapshotSkew(value)
	if err != nil {
		return err
	}
	f.Market.SnapshotSkew = k
	return nil
}

// applyGlobal sets a setting of the whole configuration.
func (f *Faults) applyGlobal(name, value string) error {
	switch name {
	case "retry-after":
		d, err := time.ParseDuration(value)
		if err != nil {
			return err
		}
		f.Chain.RetryAfter, f.Market.RetryAfter = d, d
	case "stall-slots":
		n, err := strconv.ParseUint(value, 10, 64)
		if err != nil {
			return err
		}
		f.Chain.StallSlots = n
	default:
		return fmt.Errorf("unknown setting %q (want SERVICE[.METHOD]:SETTING=VALUE, retry-after or stall-slots)", name)
	}
	return nil
}

// applySetting sets one setting of a method's faults.
func applySetting(m *inject.MethodFaults, setting, value string) error {
	switch setting {
	case "latency", "jitter":
		d, err := time.ParseDuration(value)
		if err != nil {
			return err
		}
		if setting == "latency" {
			m.Latency = d
		} else {
			m.Jitter = d
		}
		return nil
	case "lag":
		n, err := strconv.ParseUint(value, 10, 64)
		if err != nil {
			return fmt.Errorf("lag: want a number of slots: %w", err)
		}
		m.LagSlots = n
		return nil
	case "script":
		for name := range strings.SplitSeq(value, "+") {
			fault, err := inject.ParseFault(name)
			if err != nil {
				return err
			}
			m.Script = append(m.Script, fault)
		}
		return nil
	}
	fault, err := inject.ParseFault(setting)
	if err != nil || fault == inject.FaultNone {
		return fmt.Errorf("unknown setting %q (want a fault name, latency, jitter, lag or script)", setting)
	}
	p, err := parseProbability(value)
	if err != nil {
		return err
	}
	*rateOf(&m.Rates, fault) = p
	return nil
}

// parseProbability reads a probability written as a fraction (0.1) or a percentage (10%).
func parseProbability(s string) (float64, error) {
	scale := 1.0
	if t, ok := strings.CutSuffix(s, "%"); ok {
		s, scale = t, 100
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("probability %q: want a number such as 0.1 or 10%%", s)
	}
	return v / scale, nil
}

// rateOf returns the field of rates that holds fault's probability.
func rateOf(r *inject.Rates, f inject.Fault) *float64 {
	return map[inject.Fault]*float64{
		inject.FaultServerError: &r.ServerError, inject.FaultRateLimit: &r.RateLimit,
		inject.FaultTimeout: &r.Timeout, inject.FaultTruncate: &r.Truncate,
		inject.FaultNeverLand: &r.NeverLand, inject.FaultStall: &r.Stall,
		inject.FaultNull: &r.Null, inject.FaultWrongShape: &r.WrongShape, inject.FaultOversize: &r.Oversize, inject.FaultConflict: &r.Conflict,
	}[f]
}

// applyPubsub sets one fault of the RPC's websocket endpoint.
func applyPubsub(p *chainsim.PubsubFaults, setting, value string) error {
	switch setting {
	case "refuse":
		b, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("ws:refuse: %w", err)
		}
		p.RefuseUpgrade = b
	case "drop-after":
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return fmt.Errorf("ws:drop-after wants a number of notifications, got %q", value)
		}
		p.DropAfter = n
	default:
		return fmt.Errorf("unknown ws setting %q (want refuse or drop-after)", setting)
	}
	return nil
}
