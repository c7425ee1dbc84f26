// Package faults is the fault-injection suite that `make faults` runs: it
// builds the real mcplogd, and in each scenario kills it with SIGKILL at
// random points of ingest, operation completion, retention, an index
// rebuild, file following and forwarding to a studio's VictoriaLogs
// (counted there by id and seq), fills its disk (a tmpfs), and damages its
// files, then counts, from what clients were told and what the data file
// holds after the restart, how many records were acknowledged, lost and
// duplicated.
//
// A scenario is one function of type func(*Env) (Result, error) and one
// entry in Scenarios; Env starts, kills and stops servers on a data
// directory, posts batches and reads the data file directly once the server
// is dead (with its counters checked by store.Check). TestFaults runs every
// scenario (MCPLOGD_FAULTS_ROUNDS kills each, default 3; -short skips it)
// and prints the table that docs/faults.md quotes.
package faults
