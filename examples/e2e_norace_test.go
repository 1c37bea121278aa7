//go:build !race

package examples_test

// raceBuild: the tests run without -race, and so does the keeper binary they build.
const raceBuild = false
