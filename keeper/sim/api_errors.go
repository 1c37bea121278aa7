package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// genericMessage is the service's message for failures it does not explain.
const genericMessage = "Request could not be processed."

// apiError is a failure the market answers with the error envelope.
type apiError struct {
	status int
	msg    string
}

// Error returns the message.
func (e *apiError) Error() string { return e.msg }

// badRequest returns a 400 with a formatted message.
func badRequest(format string, args ...any) error {
	return &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

// unauthorized returns a 401 with a formatted message.
func unauthorized(format string, args ...any) error {
	return &apiError{status: http.StatusUnauthorized, msg: fmt.Sprintf(format, args...)}
}

// envelope is the error envelope of the spec.
type envelope struct {
	Error envelopeBody `json:"error"`
}

// envelopeBody is the envelope's error member.
type envelopeBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// envelopeJSON returns the envelope of a status and message.
func envelopeJSON(status int, msg string) []byte {
	b, _ := json.Marshal(envelope{Error: envelopeBody{Code: status, Message: msg}})
	return b
}
