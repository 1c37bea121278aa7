package policies

// alertInputs are what an alert decision used.
type alertInputs struct {
	Message string `json:"message"`
}

// alert plans a notification when `when` holds.
func (e *evaluator) alert(target string, env any) {
	ap := e.p.Params.(*AlertParams)
	if !e.when(target, env) || !e.ready(target) {
		return
	}
	msg, err := renderAlert(ap.tmpl, env)
	if err != nil {
		e.skip(target, SkipError, err.Error())
		return
	}
	e.plan(Action{Target: target, Reason: msg, Alert: &Alert{Severity: ap.Severity, Message: msg}}, alertInputs{Message: msg})
}
