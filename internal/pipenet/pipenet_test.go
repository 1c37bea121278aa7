package pipenet

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
)

func TestNetworkServesHTTP(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n Network
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "hello %s", r.Host)
		})}
		ln := n.Listen("api:80")
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		resp, err := n.Client().Get("http://api/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "hello api" {
			t.Errorf("body %q", body)
		}
		if _, err := n.Client().Get("http://nobody/"); !errors.Is(err, ErrConnRefused) {
			t.Errorf("dialing an address nobody listens on: %v, want a refused connection", err)
		}
		ln.Close()
		if _, err := ln.DialContext(t.Context(), "pipe", "api:80"); !errors.Is(err, ErrConnRefused) {
			t.Errorf("dialing a closed listener: %v, want a refused connection", err)
		}
	})
}
