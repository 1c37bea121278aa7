package config

// DefaultSquadsAppURL is the Squads app proposals are linked to when
// squads.app_url is not set.
const DefaultSquadsAppURL = "https://app.squads.so"

// Squads configures proposal mode.
type Squads struct {
	// AppURL is the base of the links to proposals in notifications and
	// logs (default DefaultSquadsAppURL).
	AppURL string `yaml:"app_url"`
}

// AppBase returns the app URL, defaulted and without a trailing slash.
func (s Squads) AppBase() string {
	u := s.AppURL
	if u == "" {
		u = DefaultSquadsAppURL
	}
	for len(u) > 0 && u[len(u)-1] == '/' {
		u = u[:len(u)-1]
	}
	return u
}
