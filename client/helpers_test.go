package client_test

import "github.com/mcplogd/mcplogd/api/apitest"

// The harness of package api's tests, shared through apitest.
type harnessOptions = apitest.Options

var (
	testToken = apitest.Token
	mustServe = apitest.MustServe
	observe   = apitest.Observe
	within    = apitest.Within
)
