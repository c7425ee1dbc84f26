// Package apitest serves the HTTP API over a real store for the tests of
// the packages around api (client, otlp, metrics): a Harness is an
// api.Server behind an httptest server on 127.0.0.1, with helpers to send
// requests with the test token and check the answers.
//
//	h := apitest.MustServe(t, nil)
//	c := client.NewClient(h.URL, apitest.Token)
package apitest
