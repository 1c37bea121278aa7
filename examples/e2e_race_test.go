//go:build race

package examples_test

// raceBuild: the tests run with -race (as CI's `go test -race ./...` does), so TestMain builds the
// keeper binary the end-to-end tests run with -race too, and a data race in the daemon fails the test
// that ran it (see raceReport).
const raceBuild = true
