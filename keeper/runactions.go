package keeper

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/internal/action"
)

// executeAll takes a run's plans along the action path, at most n at once,
// and returns their results in the plans' order, whatever order they end
// in. The plans start in their order (the evaluation puts the most urgent
// first); plans that must not overlap share a lane and run in turn (see
// lanesOf); the lanes run side by side. With n of 1 the plans run one
// after another, in order.
func (k *Keeper) executeAll(ctx context.Context, log *slog.Logger, runID string, plans []action.Plan, n int) []action.Result {
	var serial map[string]bool
	if n > 1 {
		serial = k.uncoveredMints(ctx, log, plans)
	}
	return runLanes(log, lanesOf(plans, serial, n), len(plans), n, func(i int) action.Result {
		return k.exec.Execute(ctx, runID, plans[i])
	})
}

// runLanes runs the lanes (plan indexes, each in order) at most n at once,
// starting them in their order, and returns exec's results by index. It
// waits for a free slot whatever the context says: the action path ends
// each plan promptly once the run is cancelled, and every plan is handed to
// it, as a run acting on its plans one by one would. A single lane runs on
// the caller's goroutine. A lane that panics starts no further lane; once
// the others have stopped, the panic goes on in the caller, whose run it
// ends as it would have ended the run acting on its plans one by one (the
// scheduler recovers it), its stack logged first.
func runLanes(log *slog.Logger, lanes [][]int, count, n int, exec func(i int) action.Result) []action.Result {
	out := make([]action.Result, count)
	runLane := func(lane []int) {
		for _, i := range lane {
			out[i] = exec(i)
		}
	}
	if len(lanes) == 1 {
		runLane(lanes[0])
		return out
	}
	var (
		mu       sync.Mutex
		panicked any
	)
	stopped := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return panicked != nil
	}
	slots := make(chan struct{}, max(n, 1))
	var wg sync.WaitGroup
	for _, lane := range lanes {
		slots <- struct{}{}
		if stopped() {
			break
		}
		wg.Go(func() {
			defer func() { <-slots }()
			defer func() {
				if r := recover(); r != nil {
					log.Error("An action panicked; starting no more of the run's actions", "err", fmt.Sprint(r), "stack", string(debug.Stack()))
					mu.Lock()
					if panicked == nil {
						panicked = r
					}
					mu.Unlock()
				}
			}()
			runLane(lane)
		})
	}
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
	return out
}

// lanesOf splits plans into lanes of plan indexes, each lane in the plans'
// order and the lanes in the order of their first plan. Plans share a lane
// when they work on the same target (the action path would find it busy),
// propose to the same Squads multisig (each proposal takes the multisig's
// next transaction index), or spend a mint of serial (the wallet cannot pay
// them all: in turn, a later plan fails in simulation, for no fee, and the
// most urgent pays first). With n of 1, every plan is in one lane.
func lanesOf(plans []action.Plan, serial map[string]bool, n int) [][]int {
	if n <= 1 {
		all := make([]int, len(plans))
		for i := range all {
			all[i] = i
		}
		return [][]int{all}
	}
	var lanes [][]int
	laneOf := map[string]int{} // lane index by key
	for i, p := range plans {
		keys := laneKeys(p, serial)
		at := -1
		for _, key := range keys {
			l, ok := laneOf[key]
			switch {
			case !ok:
			case at < 0:
				at = l
			case l != at:
				at = mergeLanes(lanes, laneOf, at, l)
			}
		}
		if at < 0 {
			at = len(lanes)
			lanes = append(lanes, nil)
		}
		lanes[at] = append(lanes[at], i)
		for _, key := range keys {
			laneOf[key] = at
		}
	}
	lanes = slices.DeleteFunc(lanes, func(l []int) bool { return len(l) == 0 })
	slices.SortFunc(lanes, func(a, b []int) int { return a[0] - b[0] })
	return lanes
}

// mergeLanes moves lane b's plans into lane a, in plan order, points b's
// keys at a, and returns a.
func mergeLanes(lanes [][]int, laneOf map[string]int, a, b int) int {
	lanes[a] = slices.Sorted(slices.Values(append(lanes[a], lanes[b]...)))
	lanes[b] = nil
	for key, l := range laneOf {
		if l == b {
			laneOf[key] = a
		}
	}
	return a
}

// laneKeys are what p must not share with a plan running beside it.
func laneKeys(p action.Plan, serial map[string]bool) []string {
	keys := []string{"target:" + p.Target}
	if p.Squads != nil {
		keys = append(keys, "squads:"+p.Squads.Multisig)
	}
	if spendsWallet(p) && serial[p.Mint] {
		keys = append(keys, "mint:"+p.Mint)
	}
	return keys
}

// spendsWallet reports whether p may take its Amount of Mint from keeper's
// wallet: not a dry run, which builds nothing; not a repay from collateral,
// which sells the loan's collateral; not a proposal, which a Squads vault
// pays once its members execute it.
func spendsWallet(p action.Plan) bool {
	return !p.DryRun && p.Mint != "" && p.Amount > 0 && p.Request.CollateralRepay == nil && p.Squads == nil
}

// uncoveredMints returns the mints that two or more of plans spend from the
// wallet and whose sum is more than the wallet holds, read once from the
// chain (a mint whose balance cannot be read counts as uncovered); it says
// so at INFO, once per run. Run side by side, such plans would all pass
// their simulations against one balance and the later ones fail on chain,
// fees paid, with the most urgent perhaps among them.
func (k *Keeper) uncoveredMints(ctx context.Context, log *slog.Logger, plans []action.Plan) map[string]bool {
	need, count := map[string]uint64{}, map[string]int{}
	for _, p := range plans {
		if spendsWallet(p) {
			need[p.Mint] += p.Amount
			count[p.Mint]++
		}
	}
	var out map[string]bool
	for _, mint := range slices.Sorted(maps.Keys(count)) {
		if count[mint] < 2 {
			continue
		}
		want := need[mint]
		if mint == solana.WrappedSol.String() {
			want += feeBounds(plans) // fees come out of the same lamports
		}
		have, err := k.walletHolds(ctx, mint)
		if err == nil && want <= have {
			continue
		}
		if out == nil {
			out = map[string]bool{}
		}
		out[mint] = true
		if err != nil {
			log.Info("Cannot read the wallet's balance; acting on the mint's actions one after another", "mint", mint, "err", err)
			continue
		}
		log.Info("The wallet cannot pay all of the run's actions at once; acting on the mint's actions one after another",
			"mint", mint, "actions", count[mint], "need", k.obs.amountText(mint, want), "holds", k.obs.amountText(mint, have))
	}
	return out
}

// walletHolds is what the wallet can pay in mint, read from the chain: its
// associated token account's balance, and for wrapped SOL its lamports too
// (the market wraps what the account lacks, keeper/sim's wrapNative). A
// mint of another token program than SPL Token reads as 0: its actions run
// in turn, as before there was concurrency.
func (k *Keeper) walletHolds(ctx context.Context, mint string) (uint64, error) {
	have, err := tokenBalance(ctx, k.submitter.MultipleAccounts, k.wallet, mint)
	if err != nil || mint != solana.WrappedSol.String() {
		return have, err
	}
	lamports, err := k.submitter.Balance(ctx, k.wallet)
	return have + lamports, err
}

// feeBounds is what plans may pay in fees and rent from the wallet's
// lamports at most.
func feeBounds(plans []action.Plan) uint64 {
	var sum uint64
	for _, p := range plans {
		if !p.DryRun {
			sum += p.Bounds.MaxLamports
		}
	}
	return sum
}
