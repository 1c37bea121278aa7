package apiwire

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// GenericMessage is the service's message for failures it does not explain.
const GenericMessage = "Request could not be processed."

// Error is a failure the market answers with the error envelope.
type Error struct {
	Status int
	Msg    string
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// BadRequest returns a 400 with a formatted message.
func BadRequest(format string, args ...any) error {
	return &Error{Status: http.StatusBadRequest, Msg: fmt.Sprintf(format, args...)}
}

// Unauthorized returns a 401 with a formatted message.
func Unauthorized(format string, args ...any) error {
	return &Error{Status: http.StatusUnauthorized, Msg: fmt.Sprintf(format, args...)}
}

// Envelope is the error envelope of the spec.
type Envelope struct {
	Error envelopeBody `json:"error"`
}

// envelopeBody is the envelope's error member.
type envelopeBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// EnvelopeJSON returns the envelope of a status and message.
func EnvelopeJSON(status int, msg string) []byte {
	b, _ := json.Marshal(Envelope{Error: envelopeBody{Code: status, Message: msg}})
	return b
}

// Reply is a finished answer.
type Reply struct {
	Status int
	Body   []byte
}
