package config

import (
	"slices"

	"github.com/keeper-project/keeper/internal/strictyaml"
	"github.com/keeper-project/keeper/keeper/notify"
)

// notifierAt is the YAML path of key k of notifiers[i].
func notifierAt(i int, k string) []any { return []any{"notifiers", i, k} }

// validate checks notifiers[i]: its type's required keys, its secrets read
// from their files, and its destination.
func (n *Notifier) validate(v *validator, i int) {
	at := func(k string) []any { return notifierAt(i, k) }
	if n.Name == "" {
		v.fail(at("name"), "notifiers[%d].name is required", i)
	}
	if !slices.Contains(notify.Formats, notify.Format(n.Type)) {
		v.fail(at("type"), "notifiers[%d].type must be webhook, slack, discord, telegram, pagerduty or email, got %s", i, strictyaml.Excerpt(n.Type))
	}
	switch n.Type {
	case "telegram":
		if n.ChatID == "" {
			v.fail(at("chat_id"), "notifiers[%d].chat_id is required for telegram (the chat the bot posts to)", i)
		}
	case "pagerduty":
		n.validatePagerDuty(v, i)
	}
	if n.SigningSecretFile != "" {
		if n.SigningSecret != "" {
			v.fail(at("signing_secret_file"), "notifiers[%d]: set signing_secret or signing_secret_file, not both", i)
		}
		n.SigningSecret = Secret(v.readSecretFile(at("signing_secret_file"), n.SigningSecretFile))
	}
	if n.SigningSecret != "" && n.Type == "email" {
		v.fail(at("signing_secret"), "notifiers[%d].signing_secret is for webhooks, not email", i)
	}
	if n.URLFile != "" {
		if n.URL != "" {
			v.fail(at("url_file"), "notifiers[%d]: set url or url_file, not both", i)
		}
		n.URL = URL(v.readSecretFile(at("url_file"), n.URLFile))
	}
	if n.Type == "email" {
		n.validateEmail(v, i)
	} else {
		v.url(at("url"), "notifiers[].url", string(n.URL), true)
	}
	v.positive(at("timeout"), "notifiers[].timeout", n.Timeout > 0)
	if n.Retries < 0 {
		v.fail(at("retries"), "notifiers[%d].retries must not be negative", i)
	}
}

// validatePagerDuty reads a pagerduty notifier's routing key file, requires
// a routing key, and defaults the URL to the Events API.
func (n *Notifier) validatePagerDuty(v *validator, i int) {
	if n.RoutingKeyFile != "" {
		if n.RoutingKey != "" {
			v.fail(notifierAt(i, "routing_key_file"), "notifiers[%d]: set routing_key or routing_key_file, not both", i)
		}
		n.RoutingKey = Secret(v.readSecretFile(notifierAt(i, "routing_key_file"), n.RoutingKeyFile))
	}
	if n.RoutingKey == "" {
		v.fail(notifierAt(i, "routing_key"), "notifiers[%d].routing_key (or routing_key_file) is required for pagerduty", i)
	}
	if n.URL == "" && n.URLFile == "" {
		n.URL = notify.PagerDutyEventsURL
	}
}

// validateEmail checks an email notifier: an smtp:// or smtps:// server, a
// sender, recipients, and a password only with a username.
func (n *Notifier) validateEmail(v *validator, i int) {
	if n.PasswordFile != "" {
		if n.Password != "" {
			v.fail(notifierAt(i, "password_file"), "notifiers[%d]: set password or password_file, not both", i)
		}
		n.Password = Secret(v.readSecretFile(notifierAt(i, "password_file"), n.PasswordFile))
	}
	_, err := notify.NewEmail(n.Name, notify.EmailOptions{URL: n.URL.Reveal(), From: n.From, To: n.To})
	if err != nil {
		v.fail(notifierAt(i, "url"), "%v", err)
	}
	if n.Password != "" && n.Username == "" {
		v.fail(notifierAt(i, "username"), "notifiers[%d].username is required with a password", i)
	}
}
