package notify

import (
	"fmt"
	"regexp"
	"strings"
)

// slackText renders m in Slack's mrkdwn: addresses shortened (8gHE…x4jY)
// and linked to the explorer where a link is known, transactions as links
// named by their shortened signature, and &, < and > escaped as Slack asks
// (a reason such as "health 0.13 < 0.20" would otherwise be read as a link).
func slackText(m Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", m.headline(), slackEscape(m.Policy))
	if m.Target != "" {
		fmt.Fprintf(&b, " on %s", slackLink(m.TargetLink, short(m.Target)))
	}
	var body strings.Builder
	m.writeBody(&body)
	b.WriteString(slackEscape(shortenAddresses(body.String())))
	for i, sig := range m.Signatures {
		sep := ", "
		if i == 0 {
			sep = " tx "
		}
		link := ""
		if i < len(m.Links) {
			link = m.Links[i]
		}
		b.WriteString(sep + slackLink(link, short(sig)))
	}
	return b.String()
}

// slackLink is text linked to url in mrkdwn, or text alone without a url.
func slackLink(url, text string) string {
	if url == "" {
		return slackEscape(text)
	}
	return "<" + url + "|" + slackEscape(text) + ">"
}

// slackEscape escapes the three characters Slack's mrkdwn reserves.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// base58Word matches a whole base58 word of an address's or a
// signature's length.
var base58Word = regexp.MustCompile(`\b[1-9A-HJ-NP-Za-km-z]{32,88}\b`)

// shortenAddresses shortens every address and signature in s.
func shortenAddresses(s string) string {
	return base58Word.ReplaceAllStringFunc(s, short)
}

// short writes a base58 address or signature as its first and last four
// characters (8gHE…x4jY); anything shorter than an address stays whole.
func short(s string) string {
	if len(s) < 32 {
		return s
	}
	return s[:4] + "…" + s[len(s)-4:]
}
