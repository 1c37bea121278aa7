package examples_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// keyedURL is one configured URL with a secret in every part a provider may put a key in.
type keyedURL struct {
	user, pass, path, query string
}

// keyed returns the secrets of the URL named name ("Mkt", "Rpc", ...): in every part, or in its
// path alone when pathOnly (as many providers do).
func keyed(name string, pathOnly bool) keyedURL {
	if pathOnly {
		return keyedURL{path: name + "PathTok_85"}
	}
	return keyedURL{user: name + "UserTok_81", pass: name + "PassTok_82", path: name + "PathTok_83", query: name + "QueryTok_84"}
}

// secrets lists k's secret strings.
func (k keyedURL) secrets() []string {
	return slices.DeleteFunc([]string{k.user, k.pass, k.path, k.query}, func(s string) bool { return s == "" })
}

// url returns the keyed URL of a service at host (host:port) with scheme, whose own path is tail.
func (k keyedURL) url(scheme, host, tail string) string {
	u := scheme + "://"
	if k.user != "" {
		u += k.user + ":" + k.pass + "@"
	}
	u += host + "/" + k.path + tail
	if k.query != "" {
		u += "?key=" + k.query
	}
	return u
}

// proxy serves k's keyed URL in front of target (scheme://host, the simulator's service): a request
// without k's user, password, path and query is refused; one with them is forwarded without them,
// websocket upgrades included. It returns the proxy's host:port.
func (k keyedURL) proxy(t *testing.T, target string) string {
	t.Helper()
	to, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(&url.URL{Scheme: to.Scheme, Host: to.Host})
		r.Out.URL.Path = strings.TrimPrefix(r.In.URL.Path, "/"+k.path)
		r.Out.URL.RawPath = ""
		q := r.In.URL.Query()
		q.Del("key")
		r.Out.URL.RawQuery = q.Encode()
		r.Out.Header.Del("Authorization")
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		if (user != k.user || pass != k.pass) && k.user != "" || k.query != "" && r.URL.Query().Get("key") != k.query || !strings.HasPrefix(r.URL.Path, "/"+k.path) {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// closedAddr returns an address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestE2ENoSecretInAnyOutput runs every command of the binary with a secret in every part (user,
// password, path, query) of market.base_url, chain.rpc_url, chain.jito_url and chain.ws_url: first
// through proxies that demand the secrets, so every command works (run --once acts, the daemon
// serves /status), then against addresses where nothing answers, so every error path prints. No
// secret may appear in anything a command prints, its logs at debug level included, or in what the
// daemon's HTTP endpoints serve.
func TestE2ENoSecretInAnyOutput(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSim(t)
	w := newWorkspace(t, s)
	s.until(t, 20) // a loan to repay, a withdrawal filled
	var secrets []string
	for _, name := range []string{"Mkt", "Rpc", "Jito", "Ws"} {
		secrets = append(secrets, keyed(name, false).secrets()...)
		secrets = append(secrets, keyed(name, true).secrets()...)
	}
	outputs := keyedCommands(t, s, w, false)
	outputs = append(outputs, keyedCommands(t, s, w, true)...)
	for _, r := range outputs {
		for _, sec := range secrets {
			if strings.Contains(r.stdout, sec) || strings.Contains(r.stderr, sec) {
				t.Errorf("keeper %s printed the secret %s:\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), sec, r.stdout, r.stderr)
			}
		}
	}
}

// keyedCommands runs every command with keyed URLs (the secrets in their paths alone when pathOnly),
// through proxies and then against nothing, and returns what they printed.
func keyedCommands(t *testing.T, s *simProc, w *workspace, pathOnly bool) []result {
	t.Helper()
	mkt, rpc, jito, ws := keyed("Mkt", pathOnly), keyed("Rpc", pathOnly), keyed("Jito", pathOnly), keyed("Ws", pathOnly)
	name := "keyed"
	if pathOnly {
		name = "path-keyed"
	}
	marketHost := strings.TrimSuffix(strings.TrimPrefix(s.urls.Market, "http://"), "/v1")
	setURLs := func(mktHost, rpcHost, jitoHost, wsHost string) func(map[string]any) {
		return func(c map[string]any) {
			section(c, "market")["base_url"] = mkt.url("http", mktHost, "/v1")
			chain := section(c, "chain")
			chain["rpc_url"], chain["jito_url"] = rpc.url("http", rpcHost, ""), jito.url("http", jitoHost, "")
			chain["ws_url"] = ws.url("ws", wsHost, "")
			section(c, "http")["listen"] = "127.0.0.1:0"
			section(c, "log")["level"] = "debug"
		}
	}
	policies := []string{autoRepay, claimWithdrawals, "triggers/trigger-repay.yaml"}
	good := w.configEdited(t, name, policies, setURLs(mkt.proxy(t, "http://"+marketHost), rpc.proxy(t, s.urls.RPC),
		jito.proxy(t, s.urls.Jito), ws.proxy(t, s.urls.RPC)))
	var outputs []result
	for _, args := range [][]string{
		{"check", "--config", good},
		{"check", "--online", "--config", good},
		{"plan", "--config", good},
		{"wallet", "--config", good},
		{"wallet", "--config", good, "--json"},
		{"report", "vaults", "--config", good},
		{"report", "depositors", "--config", good},
	} {
		outputs = append(outputs, runKeeper(t, w.dir, args...).wantExit(t, 0))
	}
	outputs = append(outputs, s.runActing(t, w.dir, "run", "--once", "--config", good, "--log-format", "json").wantExit(t, 0))
	outputs = append(outputs, runKeeper(t, w.dir, "history", "--config", good).wantExit(t, 0),
		runKeeper(t, w.dir, "history", "--config", good, "--json").wantExit(t, 0))
	outputs = append(outputs, servedPages(t, w, good))

	dead := w.configEdited(t, name+"-dead", policies, setURLs(closedAddr(t), closedAddr(t), closedAddr(t), closedAddr(t)))
	for _, args := range [][]string{
		{"check", "--online", "--config", dead},
		{"plan", "--config", dead},
		{"wallet", "--config", dead},
		{"report", "vaults", "--config", dead},
		{"run", "--once", "--config", dead},
		{"run", "--once", "--config", dead, "--log-format", "json"},
	} {
		r := runKeeper(t, w.dir, args...)
		if r.code == 0 && args[0] != "run" {
			t.Errorf("keeper %s against nothing: exit 0", strings.Join(args, " "))
		}
		outputs = append(outputs, r)
	}
	return outputs
}

// servedPages runs the daemon on config until it started, and returns as one result what it logged
// and what /status, /metrics, /healthz and /readyz served.
func servedPages(t *testing.T, w *workspace, config string) result {
	t.Helper()
	d := startKeeper(t, w.dir, &syncBuffer{}, "run", "--config", config, "--log-format", "json")
	d.waitStarted(t)
	var started struct {
		HTTP string `json:"http"`
	}
	for line := range strings.Lines(d.stderr.String()) {
		if strings.Contains(line, `"msg":"keeper started"`) {
			if err := json.Unmarshal([]byte(line), &started); err != nil {
				t.Fatal(err)
			}
		}
	}
	var pages strings.Builder
	for _, path := range []string{"/status", "/metrics", "/healthz", "/readyz"} {
		resp, err := http.Get("http://" + started.HTTP + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		if path == "/status" && (resp.StatusCode != http.StatusOK || len(body) == 0) {
			t.Errorf("/status: %s, %d bytes", resp.Status, len(body))
		}
		pages.Write(body)
	}
	d.stop(t)
	return result{args: []string{"run (daemon and its pages)"}, stdout: pages.String(), stderr: d.stderr.String()}
}
