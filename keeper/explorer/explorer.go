// Package explorer builds links to transactions and accounts on a Solana
// block explorer, for logs, history, notifications and /status.
package explorer

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// The explorers keeper knows by name, and how each names a cluster in its
// links (the Solana Playground's explorer table is the reference; the
// default cluster, mainnet-beta, takes no parameter on any of them).
const (
	Solscan  = "solscan"  // https://solscan.io; ?cluster=devnet|testnet; no custom RPC
	Solana   = "solana"   // https://explorer.solana.com; ?cluster=devnet|testnet|custom&customUrl=RPC
	SolanaFM = "solanafm" // https://solana.fm; ?cluster=devnet-solana|testnet-solana|custom-HOST:PORT
)

// The clusters a link can point at. Custom is a cluster of one's own (a
// local validator, the simulator): its links carry the RPC URL.
const (
	Mainnet = "mainnet-beta"
	Devnet  = "devnet"
	Testnet = "testnet"
	Custom  = "custom"
)

// Explorer turns signatures and addresses into links. The zero value makes
// no links.
type Explorer struct {
	// tx and address are URL templates with one %s for the signature or
	// the address, already escaped where they need it.
	tx, address string
}

// New returns the explorer named name (Solscan, Solana, SolanaFM) or
// described by a template: an http(s) URL with {signature} where the
// signature goes (and optionally {cluster}); cluster is one of Mainnet,
// Devnet, Testnet or Custom, and rpcURL the RPC a Custom cluster links to.
func New(name, cluster, rpcURL string) (Explorer, error) {
	switch cluster {
	case "", Mainnet, Devnet, Testnet:
	case Custom:
		if rpcURL == "" {
			return Explorer{}, errors.New("cluster custom needs the RPC URL explorer links point at")
		}
	default:
		return Explorer{}, fmt.Errorf("unknown cluster %q (want mainnet-beta, devnet, testnet or custom)", cluster)
	}
	var base, param string
	ok := true
	switch name {
	case Solscan:
		base = "https://solscan.io"
		param, ok = solscanParam(cluster)
	case Solana, "":
		base = "https://explorer.solana.com"
		param, ok = solanaParam(cluster, rpcURL)
	case SolanaFM:
		base = "https://solana.fm"
		param, ok = solanaFMParam(cluster, rpcURL)
	default:
		return fromTemplate(name, cluster)
	}
	return known(base, param, ok)
}

// known builds the explorer at base, whose links end in the cluster query
// param (ok false: the explorer cannot show that cluster).
func known(base string, param string, ok bool) (Explorer, error) {
	if !ok {
		return Explorer{}, fmt.Errorf("%s cannot show a custom cluster; use solana or solanafm, or a template", base)
	}
	p := strings.ReplaceAll(param, "%", "%%")
	return Explorer{tx: base + "/tx/%s" + p, address: base + "/address/%s" + p}, nil
}

func solscanParam(cluster string) (string, bool) {
	switch cluster {
	case Devnet, Testnet:
		return "?cluster=" + cluster, true
	case Custom:
		return "", false
	}
	return "", true
}

func solanaParam(cluster, rpcURL string) (string, bool) {
	switch cluster {
	case Devnet, Testnet:
		return "?cluster=" + cluster, true
	case Custom:
		return "?cluster=custom&customUrl=" + url.QueryEscape(rpcURL), true
	}
	return "", true
}

func solanaFMParam(cluster, rpcURL string) (string, bool) {
	switch cluster {
	case Devnet, Testnet:
		return "?cluster=" + cluster + "-solana", true
	case Custom:
		u, err := url.Parse(rpcURL)
		if err != nil || u.Host == "" {
			return "", false
		}
		return "?cluster=custom-" + u.Host, true // the host without the scheme
	}
	return "", true
}

// fromTemplate builds an explorer from an operator's template.
func fromTemplate(t, cluster string) (Explorer, error) {
	if !strings.Contains(t, "{signature}") {
		return Explorer{}, fmt.Errorf("explorer %q is neither solscan, solana nor solanafm, nor a template with {signature}", t)
	}
	u, err := url.Parse(strings.NewReplacer("{signature}", "x", "{cluster}", "x").Replace(t))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Explorer{}, fmt.Errorf("explorer template %q is not an http(s) URL", t)
	}
	if cluster == "" {
		cluster = Mainnet
	}
	tx := strings.NewReplacer("%", "%%", "{signature}", "%s", "{cluster}", url.QueryEscape(cluster)).Replace(t)
	return Explorer{tx: tx}, nil
}

// Tx returns the link to a transaction, "" for the zero Explorer.
func (e Explorer) Tx(signature string) string {
	if e.tx == "" || signature == "" {
		return ""
	}
	return fmt.Sprintf(e.tx, url.PathEscape(signature))
}

// Txs returns the links to the signatures, in order.
func (e Explorer) Txs(signatures []string) []string {
	if e.tx == "" || len(signatures) == 0 {
		return nil
	}
	out := make([]string, len(signatures))
	for i, s := range signatures {
		out[i] = e.Tx(s)
	}
	return out
}

// Address returns the link to an account, "" when the explorer has no
// account pages (a template names only transactions).
func (e Explorer) Address(address string) string {
	if e.address == "" || address == "" {
		return ""
	}
	return fmt.Sprintf(e.address, url.PathEscape(address))
}
