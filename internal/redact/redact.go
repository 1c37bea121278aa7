// Package redact is how keeper prints the URLs it is configured with, and how it keeps them out
// of the text of errors and logs. Providers put API keys in every part of a URL but the scheme and
// the host: the user info, a path segment, the query, even the fragment. Every URL keeper prints
// goes through URL, and every error or message that may quote one goes through a Secrets.
package redact

import (
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// Marker stands where a secret was.
const Marker = "<secret>"

// maxLabel is the longest host label URL shows, and maxHost the longest host name: a longer label
// is more likely a key in a subdomain than a name a person chose, and of a longer name URL shows
// the labels on the right, which name the provider, and hides those on the left, which name the
// account.
const (
	maxLabel = 32
	maxHost  = 40
)

// shownPath is the one path URL shows: the market API's version root carries no key.
var shownPath = []string{"", "/", "/v1", "/v1/"}

// URL returns raw as keeper prints it: its scheme and host, followed by "/<secret>" when it carries
// anything more (user info, a path other than /v1, a query or a fragment), because any of those may
// hold a key. A host label longer than 32 characters, and the labels on the left of a host name
// longer than 40, print as <secret> too; an IP address prints whole. An empty raw prints as
// "", and anything that is not a URL with a host as <secret>, so that nothing of it is echoed.
func URL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return Marker
	}
	out := u.Scheme + "://" + hostOf(u)
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || !slices.Contains(shownPath, u.EscapedPath()) {
		return out + "/" + Marker
	}
	return out + u.EscapedPath()
}

// hostOf returns u's host (with its port) as URL shows it.
func hostOf(u *url.URL) string {
	name, _ := hostName(u.Hostname())
	if _, err := netip.ParseAddr(u.Hostname()); err == nil {
		name = u.Hostname()
	}
	if strings.Contains(name, ":") {
		name = "[" + name + "]"
	}
	if u.Port() != "" {
		return name + ":" + u.Port()
	}
	return name
}

// hostName returns the host name name as URL shows it, and the parts of it that it hides.
func hostName(name string) (shown string, hidden []string) {
	labels := strings.Split(name, ".")
	for i, l := range labels {
		if len(l) > maxLabel {
			hidden = append(hidden, l)
			labels[i] = Marker
		}
	}
	for i := range labels {
		shown = strings.Join(labels[i:], ".")
		if i > 0 {
			shown = Marker + "." + shown
		}
		if len(shown) <= maxHost {
			if i > 0 {
				hidden = append(hidden, strings.Join(strings.Split(name, ".")[:i], "."))
			}
			return shown, hidden
		}
	}
	return Marker, append(hidden, name)
}
