package sim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// StartControlled is Start with c's control routes served on the market's address under
// ControlPrefix, and the RPC and Jito requests counted for AdvanceRequest.AfterTraffic. c must be a
// Control of s.
func (s *Sim) StartControlled(ctx context.Context, a Addrs, c *Control) (URLs, error) {
	if c == nil || c.sim != s {
		return URLs{}, errors.New("sim: start controlled: the control belongs to another simulator")
	}
	handlers := []http.Handler{withControl(c.CountMarket(s.MarketHandler()), c.Handler()),
		c.CountTraffic(s.RPCHandler()), c.CountTraffic(s.JitoHandler())}
	lns, err := listenAll(ctx, []string{a.Market, a.RPC, a.Jito})
	if err != nil {
		return URLs{}, err
	}
	for i, ln := range lns {
		s.serve(ctx, ln, handlers[i])
	}
	s.runEventsOnTheClock(ctx)
	base := func(ln net.Listener) string { return "http://" + ln.Addr().String() }
	return URLs{Market: base(lns[0]) + "/v1", RPC: base(lns[1]), Jito: base(lns[2])}, nil
}

// Control returns the base URL of the control routes (ending in ControlPrefix) when the simulator
// was started with StartControlled.
func (u URLs) Control() string {
	return strings.TrimSuffix(u.Market, "/v1") + ControlPrefix
}

// withControl sends ControlPrefix paths to control and everything else to market.
func withControl(market, control http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, ControlPrefix) {
			control.ServeHTTP(w, r)
			return
		}
		market.ServeHTTP(w, r)
	})
}

// listenAll listens on every address (loopback for an empty or host-less one), closing what it opened
// when one fails.
func listenAll(ctx context.Context, addrs []string) ([]net.Listener, error) {
	var lc net.ListenConfig
	var lns []net.Listener
	for _, addr := range addrs {
		ln, err := lc.Listen(ctx, "tcp", localAddr(addr))
		if err != nil {
			for _, l := range lns {
				_ = l.Close()
			}
			return nil, fmt.Errorf("sim: listen on %q: %w", addr, err)
		}
		lns = append(lns, ln)
	}
	return lns, nil
}
