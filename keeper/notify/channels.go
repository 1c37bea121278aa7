package notify

import (
	"encoding/json"
	"errors"
	"time"
)

// The channels beyond the generic webhook and Slack. Each is one HTTPS POST
// of a small JSON body, which Webhook already sends with retries, timeouts
// and a URL that never reaches an error; a client library per channel
// would add dependencies for a dozen lines each.
const (
	// Discord posts {"content": ...} to a Discord webhook, mentions off.
	Discord Format = "discord"
	// Telegram posts sendMessage to the Bot API URL (its token is in the
	// URL: keep it in url_file or ${ENV}) for one chat.
	Telegram Format = "telegram"
	// PagerDuty sends Events API v2 events: an alert triggers and its
	// resolution resolves one incident per policy and target; a failed or
	// refused action triggers an incident of its own. Landed actions are
	// not sent.
	PagerDuty Format = "pagerduty"
)

// EmailFormat names the email notifier (Email), which is no webhook.
const EmailFormat Format = "email"

// Formats lists every notifier type, for config validation.
var Formats = []Format{JSON, Slack, Discord, Telegram, PagerDuty, EmailFormat}

// PagerDutyEventsURL is the Events API v2 endpoint.
const PagerDutyEventsURL = "https://events.pagerduty.com/v2/enqueue"

// discordMax is the length of a Discord message's content.
const discordMax = 2000

// WithTelegramChat sets the Telegram chat w posts to.
func (w *Webhook) WithTelegramChat(chatID string) *Webhook {
	w.chatID = chatID
	return w
}

// WithRoutingKey sets the PagerDuty integration key of w's events.
func (w *Webhook) WithRoutingKey(key string) *Webhook {
	w.routingKey = key
	return w
}

// payload renders m for w's channel; skip is true when the channel has
// nothing to say about m.
func (w *Webhook) payload(m Message) (body []byte, skip bool, err error) {
	switch w.format {
	case Slack:
		body, err = json.Marshal(map[string]string{"text": slackText(m)})
	case Discord:
		text := []rune(m.Text())
		if len(text) > discordMax {
			text = append(text[:discordMax-1], '…')
		}
		body, err = json.Marshal(map[string]any{"content": string(text), "allowed_mentions": map[string]any{"parse": []string{}}})
	case Telegram:
		if w.chatID == "" {
			return nil, false, errors.New("no Telegram chat_id")
		}
		body, err = json.Marshal(map[string]any{"chat_id": w.chatID, "text": m.Text(), "disable_web_page_preview": true})
	case PagerDuty:
		return w.pagerDuty(m)
	default:
		body, err = json.Marshal(m)
	}
	return body, false, err
}

// pagerDutyEvent is an Events API v2 event.
type pagerDutyEvent struct {
	RoutingKey  string            `json:"routing_key"`
	EventAction string            `json:"event_action"` // trigger or resolve
	DedupKey    string            `json:"dedup_key"`
	Payload     *pagerDutyPayload `json:"payload,omitempty"`
	Links       []pagerDutyLink   `json:"links,omitempty"`
}

type pagerDutyPayload struct {
	Summary       string  `json:"summary"`
	Source        string  `json:"source"`
	Severity      string  `json:"severity"` // critical, error, warning or info
	Timestamp     string  `json:"timestamp,omitempty"`
	Component     string  `json:"component,omitempty"`
	Group         string  `json:"group,omitempty"`
	Class         string  `json:"class,omitempty"`
	CustomDetails Message `json:"custom_details"`
}

type pagerDutyLink struct {
	Href string `json:"href"`
	Text string `json:"text"`
}

// pagerDuty renders m as an Events API v2 event: alerts and resolutions
// share the incident's dedup key ("keeper/<policy>/<target>"), a failed or
// refused action has its own ("keeper/action/<id>"). A resolution carries
// its payload too (as Alertmanager's resolve events do), so the alert's
// log in PagerDuty shows what ended it and the incident id.
func (w *Webhook) pagerDuty(m Message) ([]byte, bool, error) {
	if w.routingKey == "" {
		return nil, false, errors.New("no PagerDuty routing_key")
	}
	ev := pagerDutyEvent{RoutingKey: w.routingKey, EventAction: "trigger", DedupKey: "keeper/" + m.Policy + "/" + m.Target}
	severity := "error"
	switch m.Event {
	case Landed:
		return nil, true, nil
	case Alert, Resolved:
		if m.Event == Resolved {
			ev.EventAction = "resolve"
		}
		severity = map[string]string{"critical": "critical", "warning": "warning"}[m.Severity]
		if severity == "" {
			severity = "info"
		}
	default:
		ev.DedupKey = "keeper/action/" + m.ActionID
	}
	summary := []rune(m.Text())
	if len(summary) > 1024 {
		summary = append(summary[:1023], '…')
	}
	ev.Payload = &pagerDutyPayload{Summary: string(summary), Source: "keeper", Severity: severity,
		Component: m.Target, Group: m.Policy, Class: m.Kind, CustomDetails: m}
	if !m.Time.IsZero() {
		ev.Payload.Timestamp = m.Time.UTC().Format(time.RFC3339)
	}
	for _, l := range m.Links {
		ev.Links = append(ev.Links, pagerDutyLink{Href: l, Text: "transaction"})
	}
	return marshal(ev)
}

func marshal(v any) ([]byte, bool, error) {
	b, err := json.Marshal(v)
	return b, false, err
}
